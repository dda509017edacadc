#include "app/commands/AnalyzeCommand.h"

#include "app/common/ExitCode.h"
#include "core/analysis/AnalysisText.h"
#include "core/analysis/EngineRoles.h"
#include "core/analysis/MultipathHeads.h"
#include "core/analysis/RangeStatistics.h"
#include "core/analysis/SessionAnalysis.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/DurationParser.h"
#include "core/util/TimeRangeText.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

nlohmann::json optional(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The numbers a window was judged on; absent values are null, never zero.
nlohmann::json measurements(const BottleneckClassifier::Window& w) {
    nlohmann::json storage = nlohmann::json::array();
    for (const auto& s : w.storage)
        storage.push_back({{"device", s.name},
                           {"bytes_per_s", optional(s.bytesPerS)},
                           {"iops", optional(s.iops)},
                           {"await_s", optional(s.awaitS)},
                           {"queue_depth", optional(s.queueDepth)},
                           {"util_pct", optional(s.utilPct)},
                           {"bandwidth_ceiling_bytes_per_s", optional(s.bandwidthCeiling)},
                           {"iops_ceiling", optional(s.iopsCeiling)},
                           {"ceiling_source", s.probed ? "probe" : "history"}});
    nlohmann::json gpus = nlohmann::json::object();
    for (const auto& [id, busy] : w.gpuBusy)
        gpus[id] = busy;
    return {{"storage", storage},
            {"gpu_busy_pct", gpus},
            {"requests_running", optional(w.requestsRunning)},
            {"requests_waiting", optional(w.requestsWaiting)},
            {"preemptions_per_s", optional(w.preemptionsPerS)},
            {"kv_cache_usage_ratio", optional(w.kvUsage)},
            {"ttft_p50_s", optional(w.ttftS)},
            {"queue_time_p50_s", optional(w.queueS)},
            {"prefill_time_p50_s", optional(w.prefillS)},
            {"lmcache_retrieve_p50_s", optional(w.retrieveS)}};
}

// Each part's own p50 and p99 over the span, from its buckets; null where they were not
// recorded.
nlohmann::json quantiles(const TtftBreakdown& b) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& part : TtftBreakdown::parts()) {
        const auto& o = b.*part.member;
        // kv_retrieve_p50_s, kv_lookup_wait_p50_s, ...
        const std::string name = std::string(part.storage ? "kv_" : "") + part.key;
        out[name + "_p50_s"] = optional(o ? o->quantile(0.50) : std::nullopt);
        out[name + "_p99_s"] = optional(o ? o->quantile(0.99) : std::nullopt);
    }
    return out;
}

// Means of the span's requests; a part the engine did not expose is null and listed in absent.
// The sum: ttft_mean_s = queue_less_storage_s + storage_wait_s + prefill_compute_s +
// residual_s; each storage part per request in storage_wait_parts_s.
nlohmann::json breakdown(const TtftBreakdown& b) {
    nlohmann::json storageParts = nlohmann::json::object();
    for (const auto& part : TtftBreakdown::parts())
        if (part.storage)
            storageParts[part.role] = optional(b.perRequestS(part));
    return {{"requests", optional(b.requests())},
            {"ttft_mean_s", optional(b.meanTtftS())},
            {"queue_mean_s", optional(b.meanQueueS())},
            {"prefill_mean_s", optional(b.meanPrefillS())},
            {"queue_less_storage_s", optional(b.queueLessStorageS())},
            {"storage_wait_s", optional(b.storageWaitS())},
            {"storage_wait_parts_s", storageParts},
            {"prefill_compute_s", optional(b.prefillComputeS())},
            {"residual_s", optional(b.residualS())},
            {"kv_retrieve_per_request_s", optional(b.retrievePerRequestS())},
            {"other_mean_s", optional(b.otherS())},
            {"storage_wait_share", optional(b.storageShare())},
            {"quantiles", quantiles(b)},
            {"absent", b.absent()},
            {"text", b.text()},
            {"quantile_text", b.quantileText()}};
}

// The schema canary per engine endpoint: the catalog roles it served and those whose family
// it never served, by their titles. A role it did not serve is absent from every figure
// above, never a zero.
nlohmann::json engineRoles(const EngineRoles::ByEndpoint& roles) {
    const auto& catalog = EngineMetricCatalog::active();
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [endpoint, byRole] : roles) {
        nlohmann::json served = nlohmann::json::array(), missing = nlohmann::json::array();
        for (const auto& [role, yes] : byRole) {
            const auto* r = catalog.role(role);
            (yes ? served : missing).push_back(r ? r->title : role);
        }
        out[endpoint] = {{"served", served}, {"not_served", missing}};
    }
    return out;
}

std::string engineRolesText(const nlohmann::json& roles) {
    std::string out;
    for (const auto& [endpoint, r] : roles.items()) {
        out += "engine " + endpoint + ": " + std::to_string(r["served"].size()) +
               " catalog roles served";
        if (!r["not_served"].empty()) {
            out += "; no family at this endpoint for: ";
            for (std::size_t i = 0; i < r["not_served"].size(); ++i)
                out += (i ? ", " : "") + r["not_served"][i].get<std::string>();
        }
        out += "\n";
    }
    return out;
}

// Path findings (skew under round-robin or queue-depth, paths not optimized) and the notes
// the policy explains.
nlohmann::json multipathJson(const PathSkew::Result& r) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : r.findings)
        findings.push_back(
            {{"device", f.device},
             {"path", f.path},
             {"share", optional(f.share)},
             {"mean_queue_depth", optional(f.meanQueueDepth)},
             {"ana_state", f.state ? nlohmann::json(*f.state) : nlohmann::json()},
             {"iopolicy", f.iopolicy ? nlohmann::json(*f.iopolicy) : nlohmann::json()},
             {"text", f.text}});
    return {{"findings", findings}, {"notes", r.notes}};
}

nlohmann::json figuresJson(const std::optional<RangeStatistics::Figures>& f) {
    if (!f)
        return nullptr;
    return {{"count", f->count}, {"min", f->min}, {"mean", f->mean},
            {"p50", f->p50},     {"p99", f->p99}, {"last", f->last}};
}

nlohmann::json requestsJson(const std::optional<RangeStatistics::Requests>& r) {
    if (!r)
        return nullptr;
    return {{"count", r->count},
            {"failed", r->failed},
            {"ttft_p50_s", optional(r->ttftP50S)},
            {"ttft_p99_s", optional(r->ttftP99S)}};
}

// A series by its path, with its labels where it has any: two series may share a path.
std::string seriesName(const MetricInfo& m) {
    const auto& labels = m.descriptor.labels;
    return labels.empty() || labels == "{}" ? m.descriptor.path : m.descriptor.path + labels;
}

// Times in seconds from the session's start; a figure nothing reported is null.
nlohmann::json rangeJson(const RangeStatistics::Result& r) {
    nlohmann::json series = nlohmann::json::array();
    for (const auto& s : r.series) {
        auto labels = nlohmann::json::parse(s.metric.descriptor.labels, nullptr, false);
        series.push_back({{"metric_id", s.metric.id},
                          {"path", s.metric.descriptor.path},
                          {"labels", labels.is_discarded() ? nlohmann::json::object() : labels},
                          {"unit", s.metric.descriptor.unit},
                          {"range", figuresJson(s.now)},
                          {"before", figuresJson(s.before)},
                          {"mean_change", optional(s.meanChange)}});
    }
    nlohmann::json shares = nlohmann::json::object();
    for (const auto& [cls, share] : r.shares)
        shares[BottleneckClassifier::name(cls)] = share;
    const bool before = r.beforeFromNs < r.fromNs;
    return {{"session", r.sessionId},
            {"from_s", static_cast<double>(r.fromNs) / 1e9},
            {"to_s", static_cast<double>(r.toNs) / 1e9},
            {"before_from_s",
             before ? nlohmann::json(static_cast<double>(r.beforeFromNs) / 1e9) : nullptr},
            {"series", series},
            {"requests", requestsJson(r.requests)},
            {"requests_before", requestsJson(r.requestsBefore)},
            {"window_s", static_cast<double>(r.windowNs) / 1e9},
            {"shares", shares}};
}

std::string number(std::optional<double> v) {
    if (!v)
        return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", *v);
    return text;
}

std::string requestsText(const RangeStatistics::Requests& r) {
    std::string out = std::to_string(r.count) + " sent, " + std::to_string(r.failed) + " failed";
    if (r.ttftP50S)
        out += ", TTFT p50 " + UnitFormat::kpi(*r.ttftP50S, "s") + ", p99 " +
               UnitFormat::kpi(*r.ttftP99S, "s");
    return out;
}

// One row per series; "-" where the series reported nothing, never a 0.
std::string rangeText(const RangeStatistics::Result& r) {
    char line[512];
    std::string out;
    std::snprintf(line, sizeof line, "session %lld, range %.3f s .. %.3f s from its start",
                  static_cast<long long>(r.sessionId), static_cast<double>(r.fromNs) / 1e9,
                  static_cast<double>(r.toNs) / 1e9);
    out += line;
    if (r.beforeFromNs < r.fromNs)
        std::snprintf(line, sizeof line, "; before it %.3f s .. %.3f s\n",
                      static_cast<double>(r.beforeFromNs) / 1e9,
                      static_cast<double>(r.fromNs) / 1e9);
    else
        std::snprintf(line, sizeof line, "; nothing before it\n");
    out += line;
    int width = 6;
    for (const auto& s : r.series)
        width = std::max(width, static_cast<int>(seriesName(s.metric).size()));
    std::snprintf(line, sizeof line, "%-*s  %-8s %7s %11s %11s %11s %11s %11s %11s %8s\n", width,
                  "series", "unit", "n", "min", "mean", "p50", "p99", "last", "mean before",
                  "change");
    out += line;
    for (const auto& s : r.series) {
        const auto& f = s.now;
        char change[32] = "-";
        if (s.meanChange)
            std::snprintf(change, sizeof change, "%+.1f %%", *s.meanChange * 100);
        std::snprintf(line, sizeof line, "%-*s  %-8s %7s %11s %11s %11s %11s %11s %11s %8s\n",
                      width, seriesName(s.metric).c_str(), s.metric.descriptor.unit.c_str(),
                      f ? std::to_string(f->count).c_str() : "0",
                      number(f ? std::optional(f->min) : std::nullopt).c_str(),
                      number(f ? std::optional(f->mean) : std::nullopt).c_str(),
                      number(f ? std::optional(f->p50) : std::nullopt).c_str(),
                      number(f ? std::optional(f->p99) : std::nullopt).c_str(),
                      number(f ? std::optional(f->last) : std::nullopt).c_str(),
                      number(s.before ? std::optional(s.before->mean) : std::nullopt).c_str(),
                      change);
        out += line;
    }
    out += "requests: " + requestsText(r.requests);
    if (r.requestsBefore)
        out += "; before it: " + requestsText(*r.requestsBefore);
    out += "\n";
    std::snprintf(line, sizeof line,
                  "bottleneck shares (%.0f s windows):", static_cast<double>(r.windowNs) / 1e9);
    out += line;
    for (const auto& [cls, share] : r.shares) {
        std::snprintf(line, sizeof line, " %s %.1f %%", BottleneckClassifier::name(cls),
                      share * 100);
        out += line;
    }
    return out + "\n";
}

} // namespace

CLI::App* AnalyzeCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "analyze",
        "Name the bottleneck of each time window of a session (storage-bound, "
        "GPU-compute-bound, KV-capacity-bound, engine-queueing, idle/client-bound, unknown) "
        "with the rule that fired and its evidence");
    cmd->add_option("--session", o.session, "Session ID (see `tierscope sessions`)")->required();
    cmd->add_option("--window", o.window, "Window length")->capture_default_str();
    cmd->add_option("--range", o.range,
                    "Only this range, from the session's start: 10s..40s, 1m..2m30s, ..40s or "
                    "10s..; per series count, min, mean, p50, p99, last and the change against "
                    "the range before it, the requests sent in it and the bottleneck shares");
    cmd->add_option("--format", o.format, "text or json")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "json"}));
    cmd->footer(BottleneckClassifier::kRulesText);
    return cmd;
}

int AnalyzeCommand::run(const GlobalOptions& global, const Options& o) {
    const auto window = DurationParser::parse(o.window);
    if (!window || *window < std::chrono::seconds(1)) {
        std::cerr << "tierscope analyze: --window must be a duration of at least 1s\n";
        return kExitUsage;
    }
    if (!o.range.empty())
        return runRange(global, o, window->count());
    Store store(global.dbPath(), Store::Mode::ReadOnly);
    if (!store.session(o.session))
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(o.session));
    const auto result = SessionAnalysis::analyze(store, o.session, window->count());
    const auto info = store.session(o.session);
    const std::int64_t end = info->endNs.value_or(std::numeric_limits<std::int64_t>::max());
    const auto roles =
        engineRoles(EngineRoles::read(store, store.metrics(o.session), info->startNs, end));
    // NVMe-oF multipath: how the session's I/O spread over each namespace's paths.
    auto heads = MultipathHeads::fromDevices(store.devices(o.session));
    MultipathHeads::addTraffic(heads, store, o.session, info->startNs, end);
    const auto paths = PathSkew::judge(heads);
    if (o.format == "json") {
        nlohmann::json windows = nlohmann::json::array();
        for (const auto& w : result.windows)
            windows.push_back({{"t_ns", w.t0Ns},
                               {"class", BottleneckClassifier::name(w.verdict.cls)},
                               {"rule", w.verdict.rule},
                               {"evidence", w.verdict.evidence},
                               {"measurements", measurements(w.input)},
                               {"ttft_breakdown", breakdown(w.ttft)}});
        nlohmann::json shares = nlohmann::json::object();
        for (const auto& [cls, share] : result.shares)
            shares[BottleneckClassifier::name(cls)] = share;
        nlohmann::json ceilings = nlohmann::json::object();
        for (const auto& [device, c] : result.ceilings)
            ceilings[device] = {{"bytes_per_s", optional(c.bytesPerS)},
                                {"iops", optional(c.iops)},
                                {"unloaded_await_s", optional(c.unloadedAwaitS)},
                                {"source", c.probed ? "probe" : "history"}};
        std::cout << nlohmann::json{{"session", o.session},
                                    {"window_s", static_cast<double>(result.windowNs) / 1e9},
                                    {"ceilings", ceilings},
                                    {"windows", windows},
                                    {"shares", shares},
                                    {"ttft_breakdown", breakdown(result.ttft)},
                                    {"engine_roles", roles},
                                    {"multipath", multipathJson(paths)}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    std::fputs(AnalysisText::of(result).c_str(), stdout);
    std::fputs(engineRolesText(roles).c_str(), stdout);
    for (const auto& f : paths.findings)
        std::printf("multipath: %s\n", f.text.c_str());
    for (const auto& note : paths.notes)
        std::printf("multipath note: %s\n", note.c_str());
    return kExitOk;
}

int AnalyzeCommand::runRange(const GlobalOptions& global, const Options& o, std::int64_t windowNs) {
    const auto range = TimeRangeText::parse(o.range);
    if (!range) {
        std::cerr << "tierscope analyze: --range '" << o.range
                  << "' is not FROM..TO with FROM before TO, in durations from the session's "
                     "start: 10s..40s, 1m..2m30s, ..40s or 10s..\n";
        return kExitUsage;
    }
    Store store(global.dbPath(), Store::Mode::ReadOnly);
    const auto info = store.session(o.session);
    if (!info)
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(o.session));
    // An open session (recording, or interrupted) runs until now, as `analyze` judges it.
    const std::int64_t length = info->endNs.value_or(WallClock().nowNs()) - info->startNs;
    const auto span = RangeStatistics::resolve(*range, length);
    if (!span) {
        std::cerr << "tierscope analyze: --range '" << o.range << "' is empty: session "
                  << o.session << " lasts "
                  << UnitFormat::seconds(static_cast<double>(length) / 1e9) << "\n";
        return kExitUsage;
    }
    const auto result =
        RangeStatistics::compute(store, o.session, span->first, span->second, windowNs);
    if (o.format == "json")
        std::cout << rangeJson(result).dump(2) << "\n";
    else
        std::fputs(rangeText(result).c_str(), stdout);
    return kExitOk;
}

} // namespace tierscope
