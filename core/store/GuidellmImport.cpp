#include "core/store/GuidellmImport.h"

#include "core/store/ImportChecks.h"

#include <cmath>

namespace tierscope {

namespace {

using Json = nlohmann::json;
using C = ImportChecks;

constexpr double kLatestEpochS = 7'258'118'400; // 2200-01-01

// The successful requests' distribution of one metric (DistributionSummary), when it holds
// any: guidellm writes an all-zero summary with count 0 for none.
const Json* successful(const Json& metrics, const char* metric, const std::string& what) {
    const Json* m = C::member(metrics, metric);
    const Json* d = m ? C::member(*m, "successful") : nullptr;
    if (!d)
        return nullptr;
    if (!d->is_object())
        C::refuse(what + " \"" + metric + "\" \"successful\" is " + C::shown(*d) +
                  ", not a distribution");
    const Json* count = C::member(*d, "count");
    if (!count)
        C::refuse(what + " \"" + metric + "\" \"successful\" has no \"count\"");
    if (C::count(*count, what + " \"" + metric + "\" \"count\"") == 0)
        return nullptr;
    for (const char* key : {"mean", "min", "max"})
        if (const Json* v = C::member(*d, key))
            C::figure(*v, what + " \"" + metric + "\" \"" + key + "\"");
    if (const Json* p = C::member(*d, "percentiles"))
        for (const auto& [key, v] : p->items())
            C::figure(v, what + " \"" + metric + "\" \"percentiles\" \"" + key + "\"");
    return d;
}

// `perSecond` 1e3 for guidellm's *_ms figures: value / 1000, rounded once.
void put(Json& kpis, const char* kpi, const Json* v, double perSecond) {
    if (v)
        kpis[kpi] = v->get<double>() / perSecond;
}

const Json* percentile(const Json& d, const char* p) {
    const Json* ps = C::member(d, "percentiles");
    return ps ? C::member(*ps, p) : nullptr;
}

// A latency distribution, unless guidellm counted requests it did not time as 0.
const Json* timed(const Json& metrics, const char* metric, const std::string& what, Json& notes) {
    const Json* d = successful(metrics, metric, what);
    const Json* min = d ? C::member(*d, "min") : nullptr;
    if (min && min->get<double>() == 0.0) {
        notes.push_back(std::string(metric) +
                        ": its minimum is 0, guidellm's value for a request it did not time; "
                        "the figures are not used");
        return nullptr;
    }
    return d;
}

Json kpisOf(const Json& metrics, const std::string& what, Json& notes) {
    Json k = Json::object();
    if (const Json* d = timed(metrics, "time_to_first_token_ms", what, notes)) {
        put(k, "ttft_mean", C::member(*d, "mean"), 1e3);
        put(k, "ttft_p50", percentile(*d, "p50"), 1e3);
        put(k, "ttft_p90", percentile(*d, "p90"), 1e3);
        put(k, "ttft_p99", percentile(*d, "p99"), 1e3);
    }
    if (const Json* d = timed(metrics, "inter_token_latency_ms", what, notes))
        put(k, "itl_mean", C::member(*d, "mean"), 1e3);
    if (const Json* d = timed(metrics, "request_latency", what, notes)) {
        put(k, "e2el_p50", percentile(*d, "p50"), 1.0);
        put(k, "e2el_p99", percentile(*d, "p99"), 1.0);
    }
    // Rates over the benchmark, weighted by time: their means are count / duration.
    if (const Json* d = successful(metrics, "output_tokens_per_second", what))
        put(k, "output_throughput", C::member(*d, "mean"), 1.0);
    if (const Json* d = successful(metrics, "requests_per_second", what))
        put(k, "request_throughput", C::member(*d, "mean"), 1.0);
    const Json* totals = C::member(metrics, "request_totals");
    if (!totals)
        C::refuse(what + " has no \"request_totals\"");
    auto total = [&](const char* key) {
        const Json* v = C::member(*totals, key);
        if (!v)
            C::refuse(what + " \"request_totals\" has no \"" + key + "\"");
        return static_cast<double>(C::count(*v, what + " \"request_totals\" \"" + key + "\""));
    };
    // Incomplete requests were cut off by the benchmark's end, not refused by the server.
    const double ok = total("successful"), failed = total("errored");
    total("incomplete");
    if (ok + failed > 0) {
        k["requests_issued"] = ok + failed;
        k["failure_rate"] = 100.0 * failed / (ok + failed);
    }
    return k;
}

std::optional<std::int64_t> epochNs(const Json* v, const std::string& what) {
    if (!v)
        return std::nullopt;
    return std::llround(C::figure(*v, what, kLatestEpochS) * 1e9);
}

// One GenerativeRequestStats as a row: its computed fields, as guidellm wrote them.
RequestRecord row(const Json& item, const std::string& status, const std::string& at) {
    if (!item.is_object())
        C::refuse(at + "is " + C::shown(item) + ", not a request");
    RequestRecord r;
    if (const Json* v = C::member(item, "time_to_first_token_ms"))
        r.ttftS = C::seconds(*v, "ms", at + "\"time_to_first_token_ms\"");
    if (const Json* v = C::member(item, "request_latency"))
        r.e2eS = C::seconds(*v, "sec", at + "\"request_latency\"");
    if (const Json* v = C::member(item, "prompt_tokens"))
        r.promptTokens = C::tokens(*v, at + "\"prompt_tokens\"");
    if (const Json* v = C::member(item, "output_tokens"))
        r.outputTokens = C::tokens(*v, at + "\"output_tokens\"");
    if (const auto start =
            epochNs(C::member(item, "request_start_time"), at + "\"request_start_time\""))
        r.sendNs = *start;
    r.httpStatus = status == "successful" ? 200 : 0;
    if (status == "errored") {
        const Json* info = C::member(item, "info");
        const Json* error = info ? C::member(*info, "error") : nullptr;
        r.error = error && error->is_string() && !error->get<std::string>().empty()
                      ? error->get<std::string>()
                      : "errored";
    } else if (status == "incomplete") {
        r.error = "incomplete: the benchmark ended before its answer";
    }
    return r;
}

// The request lists, and where guidellm listed a sample (sample_size) how many of each.
void rowsOf(const Json& b, const Json& totals, const std::string& what, ImportedRun& run) {
    const Json* requests = C::member(b, "requests");
    if (!requests)
        return;
    Json sampled = Json::object();
    for (const char* status : {"successful", "errored", "incomplete"}) {
        const Json* list = C::member(*requests, status);
        if (!list)
            continue;
        if (!list->is_array())
            C::refuse(what + " \"requests\" \"" + status + "\" is " + C::shown(*list) +
                      ", not a list");
        for (std::size_t i = 0; i < list->size(); ++i) {
            RequestRecord r = row((*list)[i], status,
                                  what + " " + status + " request " + std::to_string(i) + ": ");
            r.index = static_cast<std::int64_t>(run.requests.size());
            run.requests.push_back(std::move(r));
        }
        const Json* all = C::member(totals, status);
        if (all && all->is_number() && all->get<double>() > static_cast<double>(list->size()))
            sampled[status] = {{"rows", list->size()}, {"total", *all}};
    }
    if (!sampled.empty())
        run.summary["requests_sampled"] = sampled;
}

// The strategy names the variant: concurrent@N and synchronous (1) by concurrency, constant
// and poisson by rate, throughput by its limit if it had one.
Json paramsOf(const Json& b, const Json& metadata) {
    Json p = Json::object();
    p["guidellm_version"] = metadata.value("guidellm_version", "");
    p["report_version"] = metadata.value("version", 0);
    const Json* config = C::member(b, "config");
    for (const char* key : {"id_", "run_id", "run_index"})
        if (const Json* v = config ? C::member(*config, key) : nullptr)
            p[key] = *v;
    const Json* backend = config ? C::member(*config, "backend") : nullptr;
    if (const Json* model = backend ? C::member(*backend, "model") : nullptr;
        model && model->is_string())
        p["model"] = *model;
    const Json* strategy = config ? C::member(*config, "strategy") : nullptr;
    const Json* type = strategy ? C::member(*strategy, "type_") : nullptr;
    if (!type || !type->is_string())
        return p;
    p["strategy"] = *type;
    if (*type == "synchronous")
        p["concurrency"] = 1;
    for (const auto& [from, to] : {std::pair{"streams", "concurrency"},
                                   {"max_concurrency", "concurrency"},
                                   {"rate", "request_rate"}})
        if (const Json* v = C::member(*strategy, from); v && v->is_number() && !p.contains(to))
            p[to] = *v;
    return p;
}

std::string nameOf(const Json& p) {
    std::string name = p.value("strategy", std::string("benchmark"));
    if (p.contains("concurrency") && name != "synchronous")
        name += "@" + p["concurrency"].dump();
    if (p.contains("request_rate"))
        name += "@" + p["request_rate"].dump();
    return name;
}

ImportedRun benchmark(const Json& b, std::size_t index, const Json& metadata) {
    const std::string what = "benchmark " + std::to_string(index + 1);
    if (!b.is_object())
        C::refuse(what + " is " + C::shown(b) + ", not a benchmark");
    const Json* metrics = C::member(b, "metrics");
    if (!metrics || !metrics->is_object())
        C::refuse(what + " has no \"metrics\"");
    ImportedRun run;
    run.workload = "guidellm";
    run.params = paramsOf(b, metadata);
    run.name = nameOf(run.params);
    Json notes = Json::array();
    run.summary["imported_kpis"] = kpisOf(*metrics, what, notes);
    if (!notes.empty())
        run.summary["notes"] = notes;
    rowsOf(b, (*metrics)["request_totals"], what, run);
    run.startNs = epochNs(C::member(b, "start_time"), what + " \"start_time\"");
    run.endNs = epochNs(C::member(b, "end_time"), what + " \"end_time\"");
    Json kept = b;
    kept.erase("requests"); // they are the rows
    kept.erase("config");   // in params; its backend may carry credentials
    run.summary["guidellm"] = std::move(kept);
    return run;
}

} // namespace

std::vector<ImportedRun> GuidellmImport::parse(const std::string& text) {
    // The prompts and answers are most of a report with requests, and none of its figures.
    const Json doc =
        C::document(text, "requests", {"request_args", "output", "reasoning_output", "tool_calls"});
    if (!doc.is_object() || !C::member(doc, "benchmarks"))
        C::refuse("not a guidellm benchmarks report: no \"benchmarks\"");
    const Json* metadata = C::member(doc, "metadata");
    if (!metadata || !metadata->is_object())
        C::refuse("no \"metadata\": a guidellm report before 0.4, whose layout tierscope does "
                  "not read (guidellm 0.4 to 0.7 write report schema version 1 or 2)");
    const Json* version = C::member(*metadata, "version");
    if (!version || (*version != 1 && *version != 2))
        C::refuse("guidellm report schema version " +
                  (version ? version->dump() : std::string("absent")) +
                  "; tierscope reads versions 1 and 2 (guidellm 0.4 to 0.7)");
    const Json& benchmarks = doc["benchmarks"];
    if (!benchmarks.is_array() || benchmarks.empty())
        C::refuse("\"benchmarks\" holds no benchmark");
    std::vector<ImportedRun> out;
    for (std::size_t i = 0; i < benchmarks.size(); ++i)
        out.push_back(benchmark(benchmarks[i], i, *metadata));
    return out;
}

} // namespace tierscope
