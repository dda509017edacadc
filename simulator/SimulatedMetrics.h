#pragma once

#include "simulator/SimulatedHistogram.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The simulator's own Prometheus exposition in vLLM V1's names: token and prefix-cache
// counters, the TTFT histogram and the request-phase histograms (and LMCache's
// time_to_retrieve, with a KV store), plus the process collector's start time. It takes no
// lock: the engine's m_mutex guards it.
class SimulatedMetrics {
    using Clock = std::chrono::steady_clock;

  public:
    // kvStore: the engine has --kv-dir, so LMCache's time_to_retrieve is there too, or with
    // offloading vLLM's OffloadingConnector's lookup wait and deferred requests instead.
    // connector: EngineSimulator::Options::kvConnector.
    SimulatedMetrics(std::string model, bool kvStore, const std::string& connector = "lmcache");

    // A prompt admitted, and how many of its tokens the prefix cache held.
    void countPrompt(int promptTokens, double hitTokens);
    void countGenerated(int tokens);
    void countPrefixReset();
    // TTFT and its parts, observed together at the first token. retrieveS: the KV read time of
    // a request that had cached chunks to retrieve.
    void observeFirstToken(double ttftS, double queueS, double prefillS,
                           std::optional<double> retrieveS);
    void observeFinished(Clock::time_point arrival, Clock::time_point admitted,
                         Clock::time_point firstToken);

    // The engine's gauges and the vLLM metrics. The exposition puts the KV tiers' metrics
    // between these and processText().
    std::string text(double running, double waiting, double kvCacheUsage,
                     double deferred = 0) const;
    std::string processText() const; // process_start_time_seconds
    // The same engine in SGLang's names (kvConnector "hicache"): cached tokens by source from
    // the host tier (hostHits) and the storage tier (storageHits), load back as its KV wait.
    std::string sglangText(double running, double waiting, double tokenUsage, double hostHits,
                           double storageHits) const;

  private:
    std::string phaseText(const std::string& labels) const;
    std::string ttftText(const std::string& name, const std::string& labels) const;

    std::string m_model;
    bool m_kvStore = false;
    bool m_offloading = false;
    bool m_hicache = false;            // SGLang with HiCache: sglangText() instead of text()
    bool m_retrieve = false;           // LMCache in the engine's process: its time_to_retrieve
    std::vector<double> m_ttftBuckets; // cumulative counts per bound in kTtftBounds
    double m_ttftSum = 0;
    std::int64_t m_ttftCount = 0;
    double m_promptTokens = 0, m_generationTokens = 0, m_prefixQueries = 0, m_prefixHits = 0;
    double m_prefixResets = 0;
    // vLLM's prompt_tokens_by_source: cached tokens come through the KV connector with
    // --kv-dir (its CPU tier or the directory), else from the engine's own prefix cache.
    double m_sourceCompute = 0, m_sourceCacheHit = 0, m_sourceExternal = 0;
    // The simulator's own parts of each request, in vLLM V1's and LMCache's histograms: queue =
    // waiting for a slot; prefill = admission to first token (the KV reads and the prefill
    // compute); decode = first to last token; inference = prefill + decode; e2e = arrival to the
    // last token; LMCache time_to_retrieve = the KV reads from --kv-dir, for requests that read.
    // TTFT and its parts are observed together at the first token, so over any scrape interval
    // TTFT's sum is queue's plus prefill's plus the front end's (parsing) time.
    SimulatedHistogram m_queue, m_prefill, m_decode, m_inference, m_e2e, m_retrieveTime;
    // The offloading connector's reads: vllm:kv_offload_lookup_async_delay_seconds.
    SimulatedHistogram m_lookupWait;
    // SGLang HiCache's load back from its host and storage tiers.
    SimulatedHistogram m_loadBack;
    double m_processStart = 0; // process_start_time_seconds, as Prometheus clients compute it
};

} // namespace tierscope
