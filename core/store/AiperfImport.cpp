#include "core/store/AiperfImport.h"

#include "core/store/ImportChecks.h"

#include <algorithm>

namespace tierscope {

namespace {

using Json = nlohmann::json;
using C = ImportChecks;

constexpr std::uint64_t kMaxEpochNs = 7'258'118'400ULL * 1'000'000'000ULL; // 2200-01-01

// JsonMetricResult's statistics (aiperf/common/constants.py STAT_KEYS).
const char* const kStats[] = {"avg", "min", "max", "p1",  "p5",  "p10", "p25",
                              "p50", "p75", "p90", "p95", "p99", "std"};

// Every metric object's statistics are figures: a damaged one refuses the file.
void checkMetrics(const Json& doc) {
    bool any = false;
    for (const auto& [name, metric] : doc.items()) {
        const Json* unit = C::member(metric, "unit");
        if (!unit)
            continue; // not a metric: input_config, error_summary, telemetry_data, ...
        if (!unit->is_string())
            C::refuse("\"" + name + "\" \"unit\" is " + C::shown(*unit) + ", not a unit");
        any = true;
        for (const char* stat : kStats)
            if (const Json* v = C::member(metric, stat))
                C::figure(*v, "\"" + name + "\" \"" + stat + "\"");
    }
    if (!any)
        C::refuse("not AIPerf's profile_export_aiperf.json: no metric (an object with a "
                  "\"unit\", such as \"request_throughput\")");
}

const Json* stat(const Json& doc, const char* metric, const char* name) {
    const Json* m = C::member(doc, metric);
    return m ? C::member(*m, name) : nullptr;
}

// The unit a metric's figures are in; a metric without one cannot be read.
std::string unitOf(const Json& doc, const char* metric) {
    const Json* unit = C::member(doc[metric], "unit");
    if (!unit)
        C::refuse("\"" + std::string(metric) + "\" has no \"unit\"");
    return unit->get<std::string>(); // a string: checkMetrics
}

// A statistic in seconds, from the metric's own unit.
void latency(Json& kpis, const char* kpi, const Json& doc, const char* metric, const char* name) {
    if (const Json* v = stat(doc, metric, name))
        kpis[kpi] =
            C::seconds(*v, unitOf(doc, metric), "\"" + std::string(metric) + "\" \"" + name + "\"");
}

// A rate's average, in the one unit AIPerf writes it in.
void rate(Json& kpis, const char* kpi, const Json& doc, const char* metric, const char* unit) {
    const Json* v = stat(doc, metric, "avg");
    if (!v)
        return;
    if (const std::string written = unitOf(doc, metric); written != unit)
        C::refuse("\"" + std::string(metric) + "\" is in \"" + written + "\", not " + unit);
    kpis[kpi] = v->get<double>();
}

// How many requests failed: AIPerf's error_request_count, or where it has none (it writes the
// metric only when a request failed) the counts of its error_summary; neither: unknown.
std::optional<double> failures(const Json& doc) {
    if (const Json* v = stat(doc, "error_request_count", "avg"))
        return v->get<double>();
    const Json* summary = C::member(doc, "error_summary");
    if (!summary)
        return std::nullopt;
    if (!summary->is_array())
        C::refuse("\"error_summary\" is " + C::shown(*summary) + ", not a list");
    double n = 0;
    for (const auto& e : *summary) {
        const Json* count = C::member(e, "count");
        if (!count)
            C::refuse("an \"error_summary\" entry has no \"count\"");
        n += static_cast<double>(C::count(*count, "an \"error_summary\" \"count\""));
    }
    return n;
}

Json kpisOf(const Json& doc) {
    Json k = Json::object();
    latency(k, "ttft_mean", doc, "time_to_first_token", "avg");
    latency(k, "ttft_p50", doc, "time_to_first_token", "p50");
    latency(k, "ttft_p90", doc, "time_to_first_token", "p90");
    latency(k, "ttft_p99", doc, "time_to_first_token", "p99");
    latency(k, "tpot_mean", doc, "inter_token_latency", "avg"); // (latency - TTFT) / (OSL - 1)
    latency(k, "itl_mean", doc, "inter_chunk_latency", "avg");  // every gap, pooled
    latency(k, "tpot_p50", doc, "inter_token_latency", "p50");
    latency(k, "tpot_p99", doc, "inter_token_latency", "p99");
    latency(k, "itl_p50", doc, "inter_chunk_latency", "p50");
    latency(k, "itl_p99", doc, "inter_chunk_latency", "p99");
    latency(k, "e2el_p50", doc, "request_latency", "p50");
    latency(k, "e2el_p99", doc, "request_latency", "p99");
    rate(k, "output_throughput", doc, "output_token_throughput", "tokens/sec");
    rate(k, "request_throughput", doc, "request_throughput", "requests/sec");
    rate(k, "goodput", doc, "goodput", "requests/sec");
    const Json* ok = stat(doc, "request_count", "avg");
    const auto failed = failures(doc);
    if (ok && failed && ok->get<double>() + *failed > 0) {
        k["requests_issued"] = ok->get<double>() + *failed;
        k["failure_rate"] = 100.0 * *failed / (ok->get<double>() + *failed);
    }
    return k;
}

// "http://user:secret@host:8000" keeps its host, not its credentials.
std::string redacted(std::string url) {
    const auto scheme = url.find("://");
    const auto from = scheme == std::string::npos ? 0 : scheme + 3;
    const auto at = url.find('@', from);
    if (at != std::string::npos && at < url.find('/', from))
        url.replace(from, at - from, "***");
    return url;
}

// What the run was asked to do, from its input_config (UserConfig): never its API key,
// headers or command line, which may hold secrets.
Json paramsOf(const Json& doc) {
    Json p = Json::object();
    for (const char* key : {"aiperf_version", "schema_version", "benchmark_id"})
        if (const Json* v = C::member(doc, key))
            p[key] = *v;
    const Json* config = C::member(doc, "input_config");
    const Json* endpoint = config ? C::member(*config, "endpoint") : nullptr;
    if (const Json* names = endpoint ? C::member(*endpoint, "model_names") : nullptr;
        names && names->is_array() && !names->empty() && (*names)[0].is_string())
        p["model"] = (*names)[0];
    if (endpoint) {
        for (const char* key : {"type", "streaming"})
            if (const Json* v = C::member(*endpoint, key))
                p[key == std::string("type") ? "endpoint_type" : key] = *v;
        if (const Json* url = C::member(*endpoint, "url"); url && url->is_string())
            p["url"] = redacted(url->get<std::string>());
    }
    // concurrency and request_rate name the run's variant (load@c8, load@rate4), as for vLLM's.
    if (const Json* loadgen = config ? C::member(*config, "loadgen") : nullptr)
        for (const char* key : {"concurrency", "request_rate", "request_rate_mode", "request_count",
                                "warmup_request_count", "benchmark_duration"})
            if (const Json* v = C::member(*loadgen, key))
                p[key] = *v;
    return p;
}

std::int64_t epochNs(const Json& v, const std::string& what) {
    const std::uint64_t n = C::count(v, what);
    if (n > kMaxEpochNs)
        C::refuse(what + " is " + v.dump() + ", after the year 2200");
    return static_cast<std::int64_t>(n);
}

const Json* metricValue(const Json& metrics, const char* name, std::string& unit) {
    const Json* m = C::member(metrics, name);
    if (!m)
        return nullptr;
    const Json* value = C::member(*m, "value");
    const Json* u = C::member(*m, "unit");
    unit = u && u->is_string() ? u->get<std::string>() : "";
    return value;
}

// One MetricRecordInfo line as a request row.
RequestRecord record(const Json& line, const std::string& at, std::int64_t& endNs) {
    const Json* metadata = C::member(line, "metadata");
    if (!metadata || !metadata->is_object())
        C::refuse(at + "no \"metadata\": not an AIPerf record");
    RequestRecord r;
    const Json* start = C::member(*metadata, "request_start_ns");
    if (!start)
        C::refuse(at + "no \"request_start_ns\"");
    r.sendNs = epochNs(*start, at + "\"request_start_ns\"");
    if (const Json* credit = C::member(*metadata, "credit_issued_ns"))
        r.scheduledNs = epochNs(*credit, at + "\"credit_issued_ns\""); // the rate's schedule
    if (const Json* end = C::member(*metadata, "request_end_ns"))
        endNs = std::max(endNs, epochNs(*end, at + "\"request_end_ns\""));
    const Json* metrics = C::member(line, "metrics");
    if (metrics && !metrics->is_object())
        C::refuse(at + "\"metrics\" is " + C::shown(*metrics) + ", not an object");
    static const Json none = Json::object();
    const Json& m = metrics ? *metrics : none;
    std::string unit;
    if (const Json* v = metricValue(m, "time_to_first_token", unit))
        r.ttftS = C::seconds(*v, unit, at + "\"time_to_first_token\"");
    if (const Json* v = metricValue(m, "request_latency", unit))
        r.e2eS = C::seconds(*v, unit, at + "\"request_latency\"");
    if (const Json* v = metricValue(m, "inter_chunk_latency", unit)) {
        if (!v->is_array())
            C::refuse(at + "\"inter_chunk_latency\" is " + C::shown(*v) + ", not a list of gaps");
        for (const auto& gap : *v)
            r.itlS.push_back(C::seconds(gap, unit, at + "\"inter_chunk_latency\""));
    }
    for (const char* name : {"input_sequence_length", "error_isl"})
        if (const Json* v = metricValue(m, name, unit); v && !r.promptTokens)
            r.promptTokens = C::tokens(*v, at + "\"" + name + "\"");
    // Reasoning tokens included, as vLLM's client counts them.
    if (const Json* v = metricValue(m, "output_sequence_length", unit))
        r.outputTokens = C::tokens(*v, at + "\"output_sequence_length\"");
    r.httpStatus = 200;
    if (const Json* error = C::member(line, "error")) {
        const Json* code = C::member(*error, "code");
        r.httpStatus = code && code->is_number_integer() ? code->get<int>() : 0;
        const Json* type = C::member(*error, "type");
        const Json* message = C::member(*error, "message");
        r.error = (type && type->is_string() ? type->get<std::string>() + ": " : "") +
                  (message && message->is_string() ? message->get<std::string>() : "");
        if (r.error.empty())
            r.error = "error";
        if (r.httpStatus == 200)
            r.httpStatus = 0; // a request AIPerf counts as failed is not a success
    } else if (const Json* cancelled = C::member(*metadata, "was_cancelled");
               cancelled && *cancelled == true) {
        r.error = "cancelled";
        r.httpStatus = 0;
    }
    return r;
}

// The records file, streamed: a run of a million requests costs its rows, not its text.
std::size_t readRecords(std::istream& in, ImportedRun& run) {
    std::string text;
    std::size_t warmup = 0;
    std::int64_t endNs = 0;
    for (std::size_t n = 1; std::getline(in, text); ++n) {
        if (text.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const std::string at =
            std::string(AiperfImport::kRecordsFile) + " line " + std::to_string(n) + ": ";
        Json line;
        try {
            line = C::document(text);
        } catch (const std::exception& e) {
            C::refuse(at + e.what());
        }
        const Json* phase = C::member(line, "metadata");
        phase = phase ? C::member(*phase, "benchmark_phase") : nullptr;
        if (phase && *phase == "warmup") {
            ++warmup;
            continue;
        }
        RequestRecord r = record(line, at, endNs);
        r.index = static_cast<std::int64_t>(run.requests.size());
        run.startNs = std::min(run.startNs.value_or(r.sendNs), r.sendNs);
        run.requests.push_back(std::move(r));
    }
    if (endNs > 0)
        run.endNs = endNs;
    return warmup;
}

} // namespace

ImportedRun AiperfImport::parse(const std::string& summary, std::istream* records) {
    Json doc;
    try {
        doc = C::document(summary);
    } catch (const std::exception& e) {
        C::refuse(std::string(kSummaryFile) + ": " + e.what());
    }
    if (!doc.is_object())
        C::refuse(std::string(kSummaryFile) + ": not a JSON object");
    checkMetrics(doc);
    ImportedRun run;
    run.workload = "aiperf";
    run.params = paramsOf(doc);
    run.name = run.params.value("model", std::string("aiperf"));
    Json& s = run.summary;
    s["imported_kpis"] = kpisOf(doc);
    if (const Json* cancelled = C::member(doc, "was_cancelled"); cancelled && *cancelled == true)
        s["validity"] = Json::array(
            {{{"check", "aiperf_cancelled"},
              {"status", "fail"},
              {"detail", "AIPerf's benchmark was cancelled before its end (was_cancelled): its "
                         "figures cover part of the run"}}});
    // The window AIPerf measured: its first request and last response (wall clock, ns; the
    // rows' own stamps where there are rows, as the summary writes them as doubles).
    std::optional<std::int64_t> start, end;
    if (const Json* v = stat(doc, "min_request_timestamp", "avg"))
        start = static_cast<std::int64_t>(
            C::figure(*v, "\"min_request_timestamp\"", static_cast<double>(kMaxEpochNs)));
    if (const Json* v = stat(doc, "max_response_timestamp", "avg"))
        end = static_cast<std::int64_t>(
            C::figure(*v, "\"max_response_timestamp\"", static_cast<double>(kMaxEpochNs)));
    if (records) {
        const std::size_t warmup = readRecords(*records, run);
        s["records"] = {{"rows", run.requests.size()}, {"warmup_left_out", warmup}};
    }
    if (!run.startNs)
        run.startNs = start;
    if (!run.endNs)
        run.endNs = end;
    doc.erase("input_config"); // its figures are in params; the rest may hold secrets
    s["aiperf"] = std::move(doc);
    return run;
}

} // namespace tierscope
