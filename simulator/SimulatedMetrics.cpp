#include "simulator/SimulatedMetrics.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace tierscope {

namespace {

// vLLM V1's TTFT histogram buckets.
constexpr std::array<double, 22> kTtftBounds{0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                             0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                             20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};

// vLLM V1's request_latency_buckets (vllm/v1/metrics/loggers.py), which it uses for every
// request-phase histogram.
constexpr std::array<double, 21> kPhaseBounds{0.3,  0.5,  0.8,  1.0,   1.5,   2.0,   2.5,
                                              5.0,  10.0, 15.0, 20.0,  30.0,  40.0,  50.0,
                                              60.0, 120., 240., 480.0, 960.0, 1920., 7680.};

// Seconds since the epoch at which this process started, as the Prometheus client libraries
// compute process_start_time_seconds: boot time (btime in /proc/stat) plus the start time in
// clock ticks (field 22 of /proc/self/stat).
double processStartTime() {
    std::ifstream stat("/proc/stat");
    double boot = 0;
    for (std::string key; stat >> key;) {
        if (key == "btime") {
            stat >> boot;
            break;
        }
        stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    std::ifstream self("/proc/self/stat");
    std::string text;
    std::getline(self, text);
    const auto close = text.rfind(')');
    std::istringstream fields(close == std::string::npos ? "" : text.substr(close + 2));
    std::string field;
    double ticks = -1;
    for (int i = 3; fields >> field; ++i) // field 3 is the state, right after the comm
        if (i == 22) {
            ticks = std::strtod(field.c_str(), nullptr);
            break;
        }
    if (boot <= 0 || ticks < 0) // not Linux /proc: the construction time is as good
        return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    return boot + ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

} // namespace

SimulatedMetrics::SimulatedMetrics(std::string model, bool kvStore, const std::string& connector)
    : m_model(std::move(model)), m_kvStore(kvStore),
      m_offloading(kvStore && connector == "offloading"), m_hicache(connector == "hicache"),
      m_retrieve(kvStore && connector == "lmcache"), m_ttftBuckets(kTtftBounds.size(), 0.0),
      m_queue(kPhaseBounds), m_prefill(kPhaseBounds), m_decode(kPhaseBounds),
      m_inference(kPhaseBounds), m_e2e(kPhaseBounds), m_retrieveTime(kTtftBounds),
      m_lookupWait(kTtftBounds), m_loadBack(kTtftBounds), m_processStart(processStartTime()) {}

void SimulatedMetrics::countPrompt(int promptTokens, double hitTokens) {
    m_promptTokens += promptTokens;
    m_prefixQueries += promptTokens;
    m_prefixHits += hitTokens;
    m_sourceCompute += promptTokens - hitTokens;
    (m_kvStore ? m_sourceExternal : m_sourceCacheHit) += hitTokens;
}

void SimulatedMetrics::countGenerated(int tokens) {
    m_generationTokens += tokens;
}

void SimulatedMetrics::countPrefixReset() {
    ++m_prefixResets;
}

void SimulatedMetrics::observeFirstToken(double ttftS, double queueS, double prefillS,
                                         std::optional<double> retrieveS) {
    for (std::size_t b = 0; b < kTtftBounds.size(); ++b)
        if (ttftS <= kTtftBounds[b])
            m_ttftBuckets[b] += 1;
    m_ttftSum += ttftS;
    ++m_ttftCount;
    if (m_hicache) {
        // SGLang: queue, then the load back from its tiers, then the prefill forward.
        m_queue.observe(queueS);
        if (retrieveS)
            m_loadBack.observe(*retrieveS);
        return;
    }
    if (m_offloading && retrieveS) {
        // vLLM defers a request until its KV is in: the wait is queue time, not prefill.
        m_queue.observe(queueS + *retrieveS);
        m_prefill.observe(std::max(0.0, prefillS - *retrieveS));
        m_lookupWait.observe(*retrieveS);
        return;
    }
    m_queue.observe(queueS);
    m_prefill.observe(prefillS);
    if (m_retrieve && retrieveS)
        m_retrieveTime.observe(*retrieveS);
}

void SimulatedMetrics::observeFinished(Clock::time_point arrival, Clock::time_point admitted,
                                       Clock::time_point firstToken) {
    const auto now = Clock::now();
    const double decode = std::chrono::duration<double>(now - firstToken).count();
    m_decode.observe(decode);
    m_inference.observe(std::chrono::duration<double>(now - admitted).count());
    m_e2e.observe(std::chrono::duration<double>(now - arrival).count());
}

std::string SimulatedMetrics::text(double running, double waiting, double kvCacheUsage,
                                   double deferred) const {
    const std::string labels = "engine=\"0\",model_name=\"" + m_model + "\"";
    std::string out;
    auto gauge = [&](const char* name, const char* help, double v) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n" + name +
               "{" + labels + "} " + std::to_string(v) + "\n";
    };
    auto counter = [&](const char* name, const char* help, double v) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" +
               name + "_total{" + labels + "} " + std::to_string(v) + "\n";
    };
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", running);
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting);
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kvCacheUsage);
    if (m_offloading) {
        out += "# HELP vllm:num_requests_waiting_by_reason Number of requests waiting, by "
               "reason.\n# TYPE vllm:num_requests_waiting_by_reason gauge\n";
        for (const auto& [reason, n] : {std::pair{"capacity", waiting}, {"deferred", deferred}})
            out += "vllm:num_requests_waiting_by_reason{" + labels + ",reason=\"" + reason +
                   "\"} " + std::to_string(n) + "\n";
    }
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", m_promptTokens);
    counter("vllm:generation_tokens", "Number of generation tokens processed.", m_generationTokens);
    counter("vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.", m_prefixQueries);
    counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            m_prefixHits);
    out += "# HELP vllm:prompt_tokens_by_source Number of prompt tokens by source.\n"
           "# TYPE vllm:prompt_tokens_by_source counter\n";
    for (const auto& [source, n] : {std::pair{"local_compute", m_sourceCompute},
                                    {"local_cache_hit", m_sourceCacheHit},
                                    {"external_kv_transfer", m_sourceExternal}})
        out += "vllm:prompt_tokens_by_source_total{" + labels + ",source=\"" + source + "\"} " +
               std::to_string(n) + "\n";
    out += ttftText("vllm:time_to_first_token_seconds", labels);
    out += phaseText(labels);
    out +=
        "# HELP tierscope_sim:prefix_cache_resets Prefix-cache resets (POST /reset_prefix_cache).\n"
        "# TYPE tierscope_sim:prefix_cache_resets counter\n"
        "tierscope_sim:prefix_cache_resets_total{" +
        labels + "} " + std::to_string(m_prefixResets) + "\n";
    return out;
}

std::string SimulatedMetrics::ttftText(const std::string& name, const std::string& labels) const {
    std::string out = "# HELP " + name + " Histogram of time to first token in seconds.\n" +
                      "# TYPE " + name + " histogram\n";
    char line[256];
    for (std::size_t b = 0; b < kTtftBounds.size(); ++b) {
        std::snprintf(line, sizeof line, "%s_bucket{%s,le=\"%g\"} %.0f\n", name.c_str(),
                      labels.c_str(), kTtftBounds[b], m_ttftBuckets[b]);
        out += line;
    }
    char sum[64];
    std::snprintf(sum, sizeof sum, "%.9f", m_ttftSum);
    const std::string count = std::to_string(m_ttftCount);
    out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + count + "\n";
    out += name + "_sum{" + labels + "} " + sum + "\n";
    out += name + "_count{" + labels + "} " + count + "\n";
    return out;
}

// SGLang's names (python/sglang/srt/metrics/collector.py): its gauges, token counters, TTFT,
// queue time and HiCache's load back; the tiers' cached tokens come from SimulatedKvTiers.
// SGLang has no prefill histogram: the prefill is what its TTFT does not otherwise explain.
std::string SimulatedMetrics::sglangText(double running, double waiting, double tokenUsage,
                                         double hostHits, double storageHits) const {
    const std::string labels = "model_name=\"" + m_model + "\"";
    std::string out;
    auto one = [&](const char* name, const char* type, double v, const std::string& extra = "") {
        out += std::string("# TYPE ") + name + " " + type + "\n" + name +
               (std::string(type) == "counter" ? "_total{" : "{") + labels + extra + "} " +
               std::to_string(v) + "\n";
    };
    one("sglang:num_running_reqs", "gauge", running);
    one("sglang:num_queue_reqs", "gauge", waiting);
    one("sglang:token_usage", "gauge", tokenUsage);
    one("sglang:prompt_tokens", "counter", m_promptTokens);
    one("sglang:generation_tokens", "counter", m_generationTokens);
    out += "# TYPE sglang:cached_tokens counter\n";
    for (const auto& [source, n] :
         {std::pair{"device", m_sourceCacheHit}, {"host", hostHits}, {"storage", storageHits}})
        out += "sglang:cached_tokens_total{cache_source=\"" + std::string(source) + "\"," + labels +
               "} " + std::to_string(n) + "\n";
    out += ttftText("sglang:time_to_first_token_seconds", labels);
    out +=
        m_queue.text("sglang:queue_time_seconds", "Histogram of queueing time in seconds.", labels);
    out += m_loadBack.text("sglang:load_back_duration_seconds",
                           "Time of loading KV back into the GPU from the HiCache tiers.", labels);
    out += m_e2e.text("sglang:e2e_request_latency_seconds",
                      "Histogram of End-to-end request latency in seconds", labels);
    return out;
}

std::string SimulatedMetrics::phaseText(const std::string& labels) const {
    std::string out =
        m_queue.text("vllm:request_queue_time_seconds",
                     "Histogram of time spent in WAITING phase for request.", labels) +
        m_prefill.text("vllm:request_prefill_time_seconds",
                       "Histogram of time spent in PREFILL phase for request.", labels) +
        m_decode.text("vllm:request_decode_time_seconds",
                      "Histogram of time spent in DECODE phase for request.", labels) +
        m_inference.text("vllm:request_inference_time_seconds",
                         "Histogram of time spent in RUNNING phase for request.", labels) +
        m_e2e.text("vllm:e2e_request_latency_seconds",
                   "Histogram of e2e request latency in seconds.", labels);
    if (m_offloading)
        out += m_lookupWait.text("vllm:kv_offload_lookup_async_delay_seconds",
                                 "Time requests waited for their KV offload lookup.", labels);
    else if (m_retrieve) // LMCache in the engine's process, with a KV tier
        out += m_retrieveTime.text("lmcache:time_to_retrieve",
                                   "Time to retrieve from lmcache (seconds)",
                                   "model_name=\"" + m_model + "\",worker_id=\"0\"");
    return out;
}

// As the Prometheus client libraries' process collector writes it: which process answers.
std::string SimulatedMetrics::processText() const {
    char start[64];
    std::snprintf(start, sizeof start, "%.2f", m_processStart);
    return "# HELP process_start_time_seconds Start time of the process since unix epoch in "
           "seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds " +
           std::string(start) + "\n";
}

} // namespace tierscope
