#pragma once

#include "core/stats/HistogramQuantile.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Where the mean TTFT of a span went, from the engine's own histograms: the sums and counts of
// their observations over the span (each interval's _sum and _count increase, added up).
// Means add up where quantiles do not: mean TTFT = mean queue + mean prefill (+ what the
// engine core does not see: tokenising, the front end), and LMCache's retrieve time spread
// over every request is the part of that TTFT spent reading KV. A part the engine does not
// expose is absent, never zero; one it exposes with no observations is a real zero.
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
    std::optional<Observed> ttft;     // vllm:time_to_first_token_seconds
    std::optional<Observed> queue;    // vllm:request_queue_time_seconds
    std::optional<Observed> prefill;  // vllm:request_prefill_time_seconds (includes KV loads)
    std::optional<Observed> retrieve; // lmcache:time_to_retrieve

    // Another span's observations added to this one's.
    void add(const TtftBreakdown& other);
    bool empty() const { return !ttft && !queue && !prefill && !retrieve; }

    std::optional<double> requests() const; // TTFT observations
    std::optional<double> meanTtftS() const;
    std::optional<double> meanQueueS() const;
    std::optional<double> meanPrefillS() const;
    std::optional<double> retrievePerRequestS() const; // retrieve time over TTFT observations
    // Mean TTFT less mean queue and mean prefill, where all three are known.
    std::optional<double> otherS() const;
    // KV retrieve time over TTFT time, 0..1: the share of TTFT spent reading KV.
    std::optional<double> storageShare() const;
    // The parts the engine did not expose, in words ("queue time", "KV retrieve time").
    std::vector<std::string> absent() const;
    // "mean TTFT 9.30 s over 120 requests = queue 1.20 s + prefill 8.10 s, of which KV
    // retrieve 4.80 s (52 %)", then "; absent: ..." for the parts with no data (the engine does
    // not expose them, or nothing was recorded); empty when there is no part at all.
    std::string text() const;
    // Each part's own p50 and p99 over the span, which do not add up as the means do:
    // "p50 / p99: TTFT 8.90 s / 14.00 s, queue <= 300.0 ms / 1.20 s, ..." (a quantile in the
    // lowest bucket is given as that bucket's bound); empty when no part has buckets.
    std::string quantileText() const;
};

} // namespace tierscope
