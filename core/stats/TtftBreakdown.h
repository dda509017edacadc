#pragma once

#include "core/stats/HistogramQuantile.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Where the mean TTFT of a span went, from the engine's own histograms: the sums and counts of
// their observations over the span (each interval's _sum and _count increase, added up).
// Means add up where quantiles do not:
//
//   mean TTFT = queue (less its storage wait) + storage wait + prefill compute + residual
//
// Storage wait is what the engine says its requests spent waiting on or loading from a KV
// tier (LMCache's retrieve time, vLLM's offload lookup wait, SGLang's load back), spread over
// every request; each lies inside a phase (vLLM's queue or prefill time), which is reported
// without it. The residual is what the engine does not expose (tokenising, the front end, a
// phase it has no histogram for): shown, never folded into another part. A part the engine
// does not expose is absent, never zero; one it exposes with no observations is a real zero.
struct TtftBreakdown {
    struct Observed {
        double sumS = 0;
        double count = 0;
        // The span's observations per cumulative bucket (upper bound, count), summed by le.
        // Absent where the span has observations whose buckets were not recorded (sessions of
        // before the buckets were, or an engine that exposes only _sum and _count).
        std::optional<HistogramQuantile::Buckets> buckets = std::nullopt;

        // histogram_quantile(q) of the span's buckets; absent without buckets, without
        // observations, or when the buckets do not hold every observation counted.
        std::optional<double> quantile(double q) const;
    };
    std::optional<Observed> ttft;       // vllm:time_to_first_token_seconds
    std::optional<Observed> queue;      // vllm:request_queue_time_seconds
    std::optional<Observed> prefill;    // vllm:request_prefill_time_seconds (includes KV loads)
    std::optional<Observed> retrieve;   // lmcache:time_to_retrieve, inside prefill
    std::optional<Observed> lookupWait; // vLLM's offload lookup wait (deferred), inside queue
    std::optional<Observed> loadBack;   // SGLang HiCache's load back, inside prefill

    enum class Phase { None, Queue, Prefill };
    // Every part, in the order the texts give them: the one place a part is added. role is
    // the engine catalog's role (the recorder's engine/<endpoint>/<role>_... series), key the
    // short name analyze's JSON and the windows use, within the phase a storage part lies in.
    struct Part {
        std::optional<Observed> TtftBreakdown::*member;
        const char* role;
        const char* key;
        const char* title;
        bool storage;
        Phase within;
    };
    static const std::vector<Part>& parts();

    // Another span's observations added to this one's.
    void add(const TtftBreakdown& other);
    bool empty() const;
    bool hasStorage() const; // the engine exposes at least one storage wait part

    std::optional<double> requests() const; // TTFT observations
    std::optional<double> meanTtftS() const;
    std::optional<double> meanQueueS() const;   // the whole queue time, storage wait included
    std::optional<double> meanPrefillS() const; // the whole prefill time, KV loads included
    // One storage part's time over the TTFT observations (absent where the engine does not
    // expose it).
    std::optional<double> perRequestS(const Part& part) const;
    std::optional<double> retrievePerRequestS() const;
    // Every storage part's time over the TTFT observations.
    std::optional<double> storageWaitS() const;
    // Storage wait time over TTFT time, 0..1 (sums over the span: time-weighted).
    std::optional<double> storageShare() const;
    // The queue and prefill means without the storage wait that lies inside them. A storage
    // part larger than its phase's mean does not lie inside it (the engine measures it
    // elsewhere): it is then not subtracted, and the residual shows the overlap.
    std::optional<double> queueLessStorageS() const;
    std::optional<double> prefillComputeS() const;
    // Mean TTFT less every part shown (queue, storage wait, prefill compute): what the engine
    // does not expose. Negative where the parts overlap. Absent without a mean TTFT or parts.
    std::optional<double> residualS() const;
    // Mean TTFT less mean queue and mean prefill, where all three are known.
    std::optional<double> otherS() const;
    // The parts the engine did not expose, in words ("queue time", "storage wait").
    std::vector<std::string> absent() const;
    // "mean TTFT 9.30 s over 120 requests = queue 1.20 s + storage wait 4.80 s (52 %) +
    // prefill compute 3.30 s + residual 0.0 ms; storage wait: KV retrieve 4.80 s (in
    // prefill)", then "; absent: ..." for the parts with no data; empty when there is no part.
    std::string text() const;
    // Each part's own p50 and p99 over the span, which do not add up as the means do:
    // "p50 / p99: TTFT 8.90 s / 14.00 s, queue <= 300.0 ms / 1.20 s, ..." (a quantile in the
    // lowest bucket is given as that bucket's bound); empty when no part has buckets.
    std::string quantileText() const;
};

} // namespace tierscope
