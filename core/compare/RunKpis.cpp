#include "core/compare/RunKpis.h"

#include "core/stats/LoadSummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <numeric>

namespace tierscope {

namespace {

using Values = std::map<std::string, double>;

std::optional<double> number(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() && std::isfinite(it->get<double>())
               ? std::optional<double>(it->get<double>())
               : std::nullopt;
}

nlohmann::json object(const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

void put(Values& out, const char* name, std::optional<double> v) {
    if (v)
        out[name] = *v;
}

void ttftQuantiles(Values& out, const std::vector<double>& ttft, const std::string& suffix) {
    if (ttft.empty())
        return;
    out["ttft_mean" + suffix] = mean(ttft);
    for (const auto& [name, p] :
         {std::pair{"ttft_p50", 50.0}, {"ttft_p90", 90.0}, {"ttft_p99", 99.0}})
        out[name + suffix] = LoadSummary::percentile(ttft, p);
}

// From the run's own request rows (vLLM's definitions): percentiles by linear interpolation,
// ITL pooling every gap, TPOT per request averaged.
void fromRequests(Values& out, const std::vector<StoredRequest>& requests, bool openLoop) {
    if (requests.empty())
        return;
    std::vector<double> ttft, ttftSent, tpot, e2e;
    double gapSum = 0, gaps = 0;
    long failed = 0;
    for (const auto& r : requests) {
        if (!r.ok) {
            ++failed;
            continue;
        }
        if (r.ttftS) {
            ttftSent.push_back(*r.ttftS);
            ttft.push_back(*RunKpis::ttftOf(r, openLoop));
        }
        if (r.itlMeanS && r.itlCount && *r.itlCount > 0) {
            gapSum += *r.itlMeanS * static_cast<double>(*r.itlCount);
            gaps += static_cast<double>(*r.itlCount);
        }
        if (r.e2eS && r.ttftS && r.outputTokens && *r.outputTokens > 1)
            tpot.push_back((*r.e2eS - *r.ttftS) / (*r.outputTokens - 1));
        if (r.e2eS)
            e2e.push_back(*r.e2eS);
    }
    out["failure_rate"] =
        100.0 * static_cast<double>(failed) / static_cast<double>(requests.size());
    out[RunKpis::kIssued] = static_cast<double>(requests.size());
    ttftQuantiles(out, ttft, "");
    if (openLoop)
        ttftQuantiles(out, ttftSent, "_actual_send");
    if (gaps > 0)
        out["itl_mean"] = gapSum / gaps;
    if (!tpot.empty()) {
        out["tpot_mean"] = mean(tpot);
        out["tpot_p50"] = LoadSummary::percentile(tpot, 50);
        out["tpot_p99"] = LoadSummary::percentile(tpot, 99);
    }
    if (!e2e.empty()) {
        out["e2el_p50"] = LoadSummary::percentile(e2e, 50);
        out["e2el_p99"] = LoadSummary::percentile(e2e, 99);
    }
}

// vLLM's summary keys (in ms) and the KPIs they carry.
const std::vector<std::pair<const char*, const char*>>& vllmLatencyKeys() {
    static const std::vector<std::pair<const char*, const char*>> keys = {
        {"ttft_mean", "mean_ttft_ms"},  {"ttft_p50", "median_ttft_ms"},
        {"ttft_p90", "p90_ttft_ms"},    {"ttft_p99", "p99_ttft_ms"},
        {"itl_mean", "mean_itl_ms"},    {"tpot_mean", "mean_tpot_ms"},
        {"e2el_p50", "median_e2el_ms"}, {"e2el_p99", "p99_e2el_ms"}};
    return keys;
}

// Equal to rounding: vLLM writes its figures with full double precision.
bool agrees(double x, double y) {
    return std::abs(x - y) <= 1e-6 * std::max(std::abs(x), std::abs(y)) + 1e-12;
}

// A `vllm bench serve` result keeps vLLM's own figures (in ms): they win over rows rebuilt from
// its arrays where both agree, and they are all there is when it was saved without
// --save-detailed. With no completed request vLLM still writes 0 for each latency figure
// (np.median(ttfts or 0)): those are absent, not measurements; and a figure its own arrays
// contradict is not used (Comparison flags it).
void fromVllmSummary(Values& out, const nlohmann::json& s, const Values& fromArrays) {
    const auto completed = number(s, "completed"), failed = number(s, "failed");
    if (!completed || *completed > 0)
        for (const auto& [kpi, key] : vllmLatencyKeys()) {
            const auto v = number(s, key);
            if (!v)
                continue;
            const auto row = fromArrays.find(kpi);
            if (row == fromArrays.end() || agrees(row->second, *v / 1000.0))
                out[kpi] = *v / 1000.0;
        }
    if (completed && failed && *completed + *failed > 0) {
        out["failure_rate"] = 100.0 * *failed / (*completed + *failed);
        out[RunKpis::kIssued] = *completed + *failed;
    }
}

std::optional<double> positive(std::optional<double> v) {
    return v && *v > 0 ? v : std::nullopt;
}

void fromRunSummary(Values& out, const RunInfo& run, const nlohmann::json& s) {
    put(out, "output_throughput", number(s, "output_throughput"));
    put(out, "request_throughput", number(s, "request_throughput"));
    // Some vLLM versions write the key with a trailing colon.
    auto goodput = number(s, "request_goodput");
    put(out, "goodput", goodput ? goodput : number(s, "request_goodput:"));
    // ITL pools every gap of the run, and the gaps are not stored per request: the run's own
    // client figure (vLLM's definition, also in an imported vLLM result). With no completed
    // request vLLM still writes 0, which is no measurement.
    if (number(s, "completed").value_or(1) > 0) {
        const auto ms = [&](const char* key) {
            const auto v = number(s, key);
            return v ? std::optional<double>(*v / 1000.0) : std::nullopt;
        };
        put(out, "itl_p50", ms("median_itl_ms"));
        put(out, "itl_p99", ms("p99_itl_ms"));
    }
    put(out, "read_gb_per_s", positive(number(s, "read_gb_per_s")));
    put(out, "write_gb_per_s", positive(number(s, "write_gb_per_s")));
    // The engine's own reads (its process group's read_bytes): 0 is a measurement here, a
    // recompute that read nothing; absent where tierscope did not start the engine.
    put(out, "engine_read_bytes", number(s, "engine_read_bytes"));
    put(out, "engine_read_gb_per_s", number(s, "engine_read_gb_per_s"));
    if (run.workload == "storage/model-load")
        put(out, "model_load_time", number(s, "seconds"));
    if (run.workload == "storage/checkpoint-save")
        put(out, "checkpoint_time", number(s, "seconds"));
    if (run.workload == "storage/kv-restore" && s.contains("restore_seconds")) {
        put(out, "kv_restore_p50", number(s["restore_seconds"], "p50"));
        put(out, "kv_restore_p99", number(s["restore_seconds"], "p99"));
    }
}

// An imported run's figures (fio, AIPerf, guidellm), mapped by its importer to KPI names and
// SI units: the tool's own figures, so they win over what its rows give (as vLLM's summary
// does); a name that is no KPI is left alone.
void fromImportedKpis(Values& out, const nlohmann::json& s) {
    const auto it = s.find("imported_kpis");
    if (it == s.end() || !it->is_object())
        return;
    for (const auto& [name, v] : it->items())
        if (v.is_number() && std::isfinite(v.get<double>()) &&
            (RunKpis::find(name) || name == RunKpis::kIssued))
            out[name] = v.get<double>();
}

void fromTimeline(Values& out, const RunTimeline& t) {
    put(out, "gpu_busy_mean", t.gpuBusyMeanPct);
    // A sampled device that moved nothing has a peak of zero, a measurement: an arm that
    // usually reads nothing is not averaged over its few reading runs. Unsampled is absent.
    put(out, "read_gb_per_s_peak", t.readPeakGBps);
    put(out, "write_gb_per_s_peak", t.writePeakGBps);
    // The engine's own TTFT breakdown over the run: means, which add up where quantiles do not.
    put(out, "engine_ttft_mean", t.ttft.meanTtftS());
    // The run's own histogram (its bucket increases summed): the figure `analyze` and the
    // In-view line give for the same span.
    if (t.ttft.ttft) {
        put(out, "engine_ttft_p50", t.ttft.ttft->quantile(0.5));
        put(out, "engine_ttft_p99", t.ttft.ttft->quantile(0.99));
    }
    put(out, "engine_queue_mean", t.ttft.meanQueueS());
    put(out, "engine_prefill_mean", t.ttft.meanPrefillS());
    // Where the mean TTFT went: queue + storage wait + prefill compute + residual.
    put(out, "storage_wait_mean", t.ttft.storageWaitS());
    put(out, "engine_prefill_compute_mean", t.ttft.prefillComputeS());
    put(out, "engine_ttft_residual_mean", t.ttft.residualS());
    if (const auto share = t.ttft.storageShare())
        out["storage_wait_share"] = *share * 100;
    // Where the run's prompt tokens came from, as the engine counts them (vLLM's
    // prompt_tokens_by_source): from a KV connector (an offload tier, another instance) or
    // the local prefix cache, against all of them.
    double prompt = 0;
    for (const auto& [source, n] : t.promptTokensBySource)
        prompt += n;
    if (prompt > 0) {
        auto share = [&](const char* source) {
            const auto it = t.promptTokensBySource.find(source);
            return (it == t.promptTokensBySource.end() ? 0.0 : it->second) / prompt * 100;
        };
        // Everything neither computed nor found in the GPU's own cache came from outside it:
        // a KV connector (vLLM's external_kv_transfer), a host or storage tier (SGLang).
        double outside = 0;
        for (const auto& [source, n] : t.promptTokensBySource)
            if (source != "local_compute" && source != "local_cache_hit")
                outside += n;
        out["kv_transfer_token_share"] = outside / prompt * 100;
        out["prefix_cache_token_share"] = share("local_cache_hit");
    }
    if (t.durationS > 0) {
        if (t.kvTierReadBytes)
            out["kv_tier_read_gb_per_s"] = *t.kvTierReadBytes / t.durationS * 1e-9;
        if (t.kvOffloadLoadBytes)
            out["kv_offload_load_gb_per_s"] = *t.kvOffloadLoadBytes / t.durationS * 1e-9;
    }
    put(out, "requests_deferred_mean", t.deferredMean);
    if (t.shares.empty())
        return; // no windows: no share, not a zero one
    for (const auto c : BottleneckClassifier::all()) {
        const auto it = t.shares.find(c);
        // In percent, to a millionth: the shares are sums of window fractions.
        out[RunKpis::shareName(c)] =
            it == t.shares.end() ? 0.0 : std::round(it->second * 100 * 1e6) / 1e6;
    }
}

// The run's output tokens: its summary's total (vLLM's own figure, or the load client's, which
// is null when a completed request came without a count), else its completed requests', where
// each has a count.
std::optional<double> outputTokens(const nlohmann::json& summary,
                                   const std::vector<StoredRequest>& requests) {
    if (const auto total = number(summary, "total_output_tokens"))
        return total;
    if (requests.empty())
        return std::nullopt;
    double tokens = 0;
    for (const auto& r : requests) {
        if (!r.ok)
            continue;
        if (!r.outputTokens)
            return std::nullopt;
        tokens += *r.outputTokens;
    }
    return tokens;
}

// The GPUs' energy over the run per token it generated: failed requests' energy is in it, as
// what the run cost.
void energyPerToken(Values& out, const RunTimeline& t, std::optional<double> tokens) {
    if (!t.gpuEnergy.joules || !tokens || *tokens <= 0)
        return;
    out["joules_per_output_token"] = *t.gpuEnergy.joules / *tokens;
    out[RunKpis::kEnergyIntegrated] = t.gpuEnergy.integratedGpus > 0 ? 1.0 : 0.0;
}

std::vector<RunKpis::Definition> build() {
    const char* scheduled = "under an open-loop rate, from the scheduled send";
    std::vector<RunKpis::Definition> out = {
        {"ttft_mean", "TTFT mean", "s", true, false, scheduled, 0},
        {"ttft_p50", "TTFT p50", "s", true, false, scheduled, 1},
        {"ttft_p90", "TTFT p90", "s", true, false, scheduled, 0},
        {"ttft_p99", "TTFT p99", "s", true, false, scheduled, 0},
        {"ttft_p50_actual_send", "ttft_p50_actual_send", "s", true, false,
         "open loop only: from the actual send", 0},
        {"ttft_p90_actual_send", "ttft_p90_actual_send", "s", true, false,
         "open loop only: from the actual send", 0},
        {"ttft_p99_actual_send", "ttft_p99_actual_send", "s", true, false,
         "open loop only: from the actual send", 0},
        {"itl_mean", "ITL mean", "s", true, false, "every gap of the run pooled", 0},
        {"tpot_mean", "TPOT mean", "s", true, false, "", 0},
        {"tpot_p50", "TPOT p50", "s", true, false, "over the run's requests' TPOTs", 0},
        {"tpot_p99", "TPOT p99", "s", true, false, "over the run's requests' TPOTs", 0},
        {"itl_p50", "ITL p50", "s", true, false, "every gap of the run pooled, by its client", 0},
        {"itl_p99", "ITL p99", "s", true, false, "every gap of the run pooled, by its client", 0},
        {"e2el_p50", "E2E latency p50", "s", true, false, "", 0},
        {"e2el_p99", "E2E latency p99", "s", true, false, "", 0},
        {"failure_rate", "failure rate", "%", true, true, "failed / issued", 0},
        {"output_throughput", "throughput", "tok/s", false, false, "", 2},
        {"request_throughput", "request rate", "req/s", false, false, "", 0},
        {"goodput", "goodput", "req/s", false, false, "", 0},
        {"read_gb_per_s", "read GB/s", "GB/s", false, false, "", 6},
        {"write_gb_per_s", "write GB/s", "GB/s", false, false, "", 7},
        {"read_iops", "read IOPS", "IO/s", false, false, "fio's read IOPS (imported fio jobs)", 0},
        {"write_iops", "write IOPS", "IO/s", false, false, "fio's write IOPS (imported fio jobs)",
         0},
        {"read_clat_p50", "read clat p50", "s", true, false,
         "fio's completion latency per read I/O (imported fio jobs)", 0},
        {"read_clat_p99", "read clat p99", "s", true, false,
         "fio's completion latency per read I/O (imported fio jobs)", 0},
        {"write_clat_p50", "write clat p50", "s", true, false,
         "fio's completion latency per write I/O (imported fio jobs)", 0},
        {"write_clat_p99", "write clat p99", "s", true, false,
         "fio's completion latency per write I/O (imported fio jobs)", 0},
        {"model_load_time", "model load time", "s", true, false, "", 3},
        {"checkpoint_time", "checkpoint time", "s", true, false, "", 4},
        {"kv_restore_p50", "KV restore p50", "s", true, false, "", 5},
        {"kv_restore_p99", "KV restore p99", "s", true, false, "", 0},
        {"engine_ttft_mean", "engine_ttft_mean", "s", true, false,
         "the engine's own, from its TTFT histogram", 0},
        {"engine_ttft_p50", "engine_ttft_p50", "s", true, false,
         "histogram_quantile of the engine's TTFT buckets over the run", 0},
        {"engine_ttft_p99", "engine_ttft_p99", "s", true, false,
         "histogram_quantile of the engine's TTFT buckets over the run", 0},
        {"engine_queue_mean", "engine_queue_mean", "s", true, false,
         "the engine's queue time histogram", 0},
        {"engine_prefill_mean", "engine_prefill_mean", "s", true, false,
         "the engine's prefill time histogram (includes KV loads)", 0},
        {"storage_wait_mean", "storage wait mean", "s", true, false,
         "the engine's storage waits (KV lookup wait, KV retrieve, KV load back) over its TTFT "
         "observations",
         0},
        {"storage_wait_share", "storage-wait share of TTFT", "%", true, false,
         "the engine's storage wait time over its TTFT time", 0},
        {"engine_prefill_compute_mean", "engine_prefill_compute_mean", "s", true, false,
         "the engine's prefill time less the storage wait inside it", 0},
        {"engine_ttft_residual_mean", "engine_ttft_residual_mean", "s", true, false,
         "mean TTFT less queue, storage wait and prefill compute: what the engine does not "
         "expose",
         0},
        {"kv_transfer_token_share", "KV-transfer token share", "%", false, false,
         "prompt tokens the engine loaded from outside the GPU (a KV connector, a host or "
         "storage tier, another instance), of all its prompt tokens",
         0, true},
        {"prefix_cache_token_share", "prefix-cache token share", "%", false, false,
         "prompt tokens the engine found in its own prefix cache, of all its prompt tokens", 0,
         true},
        {"kv_tier_read_gb_per_s", "KV tier read GB/s", "GB/s", false, false,
         "bytes the engine's offload tiers read over the run, per second of the run", 0},
        {"kv_offload_load_gb_per_s", "KV offload load GB/s", "GB/s", false, false,
         "bytes the engine loaded from its first offload tier, per second of the run", 0},
        {"engine_read_bytes", "engine read bytes", "bytes", false, false,
         "what the engine's own processes read from storage in the measured phase "
         "(read_bytes of its process group in /proc/<pid>/io), not the whole machine's",
         0},
        {"engine_read_gb_per_s", "engine read GB/s", "GB/s", false, false,
         "the engine's own reads over the benchmark duration", 0},
        {"requests_deferred_mean", "requests deferred", "requests", true, false,
         "requests waiting for their KV from a connector, the engine's gauge averaged", 0},
        {"gpu_busy_mean", "GPU busy", "%", false, false, "", 0},
        {"joules_per_output_token", "energy per output token", "J/tok", true, false,
         "every GPU's energy over the run (NVML's and rocm-smi's energy counters) per output "
         "token; idle GPUs of the machine count too",
         0},
        {"read_gb_per_s_peak", "peak read GB/s", "GB/s", false, false,
         "highest 1 s mean of the block devices: machine-wide, every process's reads", 0},
        {"write_gb_per_s_peak", "peak write GB/s", "GB/s", false, false,
         "highest 1 s mean of the block devices: machine-wide, every process's writes", 0},
        {"max_rate_at_slo", "max rate at SLO", "req/s", false, false,
         "the arm's load sweep: the highest request rate where every SLO holds", 8, false, true},
        {"max_concurrency_at_slo", "max concurrency at SLO", "requests", false, false,
         "the arm's load sweep: the highest concurrency where every SLO holds", 9, false, true},
    };
    for (const auto c : BottleneckClassifier::all()) {
        // Less time storage-, KV- or queue-bound is better; GPU-bound time is the goal.
        const std::string name = RunKpis::shareName(c);
        out.push_back({name, name, "%", c != BottleneckClassifier::Class::GpuComputeBound, false,
                       "share of the run's time", 0, true});
    }
    return out;
}

} // namespace

const std::vector<RunKpis::Definition>& RunKpis::definitions() {
    static const auto all = build();
    return all;
}

std::optional<std::string> RunKpis::renamedTo(const std::string& name) {
    // Widened to every storage wait the engines expose, not LMCache's retrieve alone.
    static const std::map<std::string, std::string> renamed = {
        {"ttft_storage_share", "storage_wait_share"},
        {"kv_retrieve_per_request", "storage_wait_mean"}};
    const auto it = renamed.find(name);
    return it == renamed.end() ? std::nullopt : std::optional(it->second);
}

const RunKpis::Definition* RunKpis::find(const std::string& name) {
    for (const auto& d : definitions())
        if (d.name == name)
            return &d;
    return nullptr;
}

std::vector<std::string> RunKpis::summaryConflicts(const RunInfo& run,
                                                   const std::vector<StoredRequest>& requests) {
    std::vector<std::string> out;
    if (run.workload != "vllm-bench" || requests.empty())
        return out;
    Values fromArrays;
    fromRequests(fromArrays, requests, openLoop(run));
    const auto summary = object(run.summaryJson);
    for (const auto& [kpi, key] : vllmLatencyKeys()) {
        const auto v = number(summary, key);
        const auto row = fromArrays.find(kpi);
        if (!v || row == fromArrays.end() || agrees(row->second, *v / 1000.0))
            continue;
        char text[200];
        std::snprintf(text, sizeof text,
                      "%s %.3f ms in the summary, %.3f ms from its %zu requests: the requests' "
                      "figure is used",
                      key, *v, row->second * 1000.0, requests.size());
        out.push_back(text);
    }
    return out;
}

std::string RunKpis::shareName(BottleneckClassifier::Class c) {
    std::string name = BottleneckClassifier::name(c);
    for (auto& ch : name)
        if (ch == '-' || ch == '/')
            ch = '_';
    return name + "_share";
}

bool RunKpis::isMeasurement(const RunInfo& run) {
    return run.status == "completed" || run.status == "imported";
}

std::optional<double> RunKpis::ttftOf(const StoredRequest& r, bool openLoop) {
    return openLoop ? r.ttftFromScheduleS() : r.ttftS;
}

bool RunKpis::importedLoad(const RunInfo& run) {
    return run.workload == "vllm-bench" || run.workload == "aiperf" || run.workload == "guidellm";
}

bool RunKpis::openLoop(const RunInfo& run) {
    const auto params = object(run.paramsJson);
    return number(params, "rate").value_or(0) > 0;
}

std::string RunKpis::variant(const RunInfo& run) {
    const auto params = object(run.paramsJson);
    std::string out = importedLoad(run) ? "load" : run.workload;
    // An imported fio job names what it measures (FioImport): a sequential O_DIRECT read is
    // a model-load, anything else compares only with fio jobs of its own pattern.
    if (const auto v = params.find("variant");
        run.workload == "storage/fio" && v != params.end() && v->is_string())
        out = v->get<std::string>();
    auto concurrency = number(params, "concurrency");
    if (!concurrency)
        concurrency = number(params, "max_concurrency");
    if (const auto at = run.experiment.rfind("@c"); !concurrency && at != std::string::npos)
        concurrency = std::strtod(run.experiment.c_str() + at + 2, nullptr); // plan/kind@cN
    auto rate = number(params, "rate");
    if (!rate)
        rate = number(params, "request_rate"); // vLLM writes "inf" for "all at once"
    char text[64];
    if (rate && *rate > 0) {
        std::snprintf(text, sizeof text, "@rate%g", *rate);
        out += text;
    }
    if (concurrency && *concurrency > 0) {
        std::snprintf(text, sizeof text, "@c%g", *concurrency);
        out += text;
    }
    return out;
}

std::map<std::string, double> RunKpis::of(const RunInfo& run,
                                          const std::vector<StoredRequest>& requests,
                                          const RunTimeline* timeline) {
    Values out;
    const auto summary = object(run.summaryJson);
    fromRequests(out, requests, openLoop(run));
    if (run.workload == "vllm-bench")
        fromVllmSummary(out, summary, Values(out));
    fromRunSummary(out, run, summary);
    fromImportedKpis(out, summary);
    if (timeline) {
        fromTimeline(out, *timeline);
        energyPerToken(out, *timeline, outputTokens(summary, requests));
    }
    return out;
}

} // namespace tierscope
