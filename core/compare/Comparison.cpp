#include "core/compare/Comparison.h"

#include "core/compare/RunKpis.h"
#include "core/compare/SequentialDesign.h"
#include "core/stats/TInterval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

namespace tierscope {

namespace {

// Each measured run's KPIs, and when it started (s since the epoch), in run order.
struct RunValue {
    double startS = 0.0;
    std::map<std::string, double> kpis;
};
using RunValues = std::vector<RunValue>;

// An open-loop run of tierscope's own client, whose TTFT counts from the scheduled send.
bool scheduledTtft(const RunInfo& r) {
    return !RunKpis::importedLoad(r) && RunKpis::openLoop(r);
}

// vLLM's client (and AIPerf's and guidellm's) times TTFT from the actual send, also under a
// rate. When a comparison holds both kinds of open-loop run, tierscope's runs are read from
// their actual send too, so every run is measured the same way.
bool mixesTtftClocks(const ComparisonSide& a, const ComparisonSide& b) {
    bool scheduled = false, actual = false;
    for (const auto* side : {&a, &b})
        for (const auto& r : side->runs) {
            if (!RunKpis::isMeasurement(r))
                continue;
            scheduled |= scheduledTtft(r);
            actual |= RunKpis::importedLoad(r);
        }
    return scheduled && actual;
}

// Each measured run's KPIs, in run order.
RunValues runValues(const ComparisonSide& side, bool actualSend) {
    RunValues out;
    for (std::size_t i = 0; i < side.runs.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]))
            continue;
        static const std::vector<StoredRequest> none;
        const auto& requests = i < side.requests.size() ? side.requests[i] : none;
        const RunTimeline* timeline = i < side.timelines.size() ? &side.timelines[i] : nullptr;
        auto values = RunKpis::of(side.runs[i], requests, timeline);
        if (actualSend && scheduledTtft(side.runs[i]))
            for (const char* name : {"ttft_mean", "ttft_p50", "ttft_p90", "ttft_p99"}) {
                const auto it = values.find(name + std::string("_actual_send"));
                if (it == values.end())
                    values.erase(name);
                else
                    values[name] = it->second;
            }
        out.push_back({static_cast<double>(side.runs[i].startNs) / 1e9, std::move(values)});
    }
    return out;
}

std::vector<double> column(const RunValues& runs, const std::string& name,
                           std::vector<double>* starts = nullptr) {
    std::vector<double> out;
    for (const auto& run : runs)
        if (const auto it = run.kpis.find(name); it != run.kpis.end()) {
            out.push_back(it->second);
            if (starts)
                starts->push_back(run.startS);
        }
    return out;
}

double mean(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

bool allZero(const std::vector<double>& v) {
    for (const double x : v)
        if (x != 0.0)
            return false;
    return true;
}

bool allPositive(const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0 && std::isfinite(x); });
}

// exp(mean(log v)); a side whose runs agree keeps their value exactly, so one imported run's
// figure reads back bit-identical.
double geometricMean(const std::vector<double>& v) {
    if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); }))
        return v.front();
    double logs = 0.0;
    for (const double x : v)
        logs += std::log(x);
    return std::exp(logs / static_cast<double>(v.size()));
}

// Device figures describe how a run went, not what it achieved: an arm that reads nothing from
// disk because its data sits in RAM is not "worse" for its lower disk bandwidth. Only where
// the workload's own output is bandwidth (a storage workload) do they have a better direction.
bool deviceFigure(const std::string& name) {
    return name == "read_gb_per_s" || name == "write_gb_per_s" || name == "read_gb_per_s_peak" ||
           name == "write_gb_per_s_peak" || name == "gpu_busy_mean" ||
           name == "kv_tier_read_gb_per_s" || name == "kv_offload_load_gb_per_s" ||
           name == "engine_read_bytes" || name == "engine_read_gb_per_s";
}

bool storageWorkloads(const ComparisonSide& a, const ComparisonSide& b) {
    for (const auto* side : {&a, &b})
        for (const auto& r : side->runs)
            if (RunKpis::isMeasurement(r) && !r.workload.starts_with("storage/"))
                return false;
    return true;
}

// Energy integrated from power readings misses what happens between them: the note says on
// how many runs, so the figure is never read as a hardware counter's.
void markIntegratedEnergy(KpiComparison& k, const RunValues& a, const RunValues& b) {
    std::size_t integrated = 0, runs = 0;
    for (const auto* side : {&a, &b})
        for (const auto& [start, run] : *side)
            if (run.count(k.name)) {
                ++runs;
                const auto it = run.find(RunKpis::kEnergyIntegrated);
                integrated += it != run.end() && it->second > 0 ? 1 : 0;
            }
    if (integrated > 0)
        k.note = "integrated from GPU power readings (no energy counter) on " +
                 std::to_string(integrated) + " of " + std::to_string(runs) + " runs; " + k.note;
}

// shares: a time share moves in points; it is never compared as a ratio.
KpiComparison make(const RunKpis::Definition& d, std::vector<double> a, std::vector<double> b,
                   bool directional, bool share, const std::optional<SequentialDesign>& design) {
    KpiComparison k;
    if (design) {
        k.looks = design->looks;
        k.confidence = design->confidence();
    }
    k.name = d.name;
    k.unit = d.unit;
    k.lowerIsBetter = d.lowerIsBetter;
    k.gateOnLevel = d.gateOnLevel;
    k.directional = directional;
    k.note = d.note;
    k.countA = a.size();
    k.countB = b.size();
    if (!share && !d.gateOnLevel && allPositive(a) && allPositive(b)) {
        k.scale = KpiComparison::Scale::Ratio;
        k.a = geometricMean(a);
        k.b = geometricMean(b);
        if (const auto r = TInterval::welchRatio(a, b, k.confidence))
            k.interval = r->interval;
    } else {
        k.a = mean(a);
        k.b = mean(b);
        if (const auto w = TInterval::welch(a, b, k.confidence))
            k.interval = w->interval;
    }
    k.runsA = std::move(a);
    k.runsB = std::move(b);
    return k;
}

} // namespace

std::vector<KpiComparison> Comparison::compare(const ComparisonSide& a, const ComparisonSide& b) {
    const bool actualSend = mixesTtftClocks(a, b);
    const auto runsA = runValues(a, actualSend), runsB = runValues(b, actualSend);
    const bool storage = storageWorkloads(a, b);
    std::vector<RunInfo> measured;
    for (const auto* side : {&a, &b})
        for (const auto& r : side->runs)
            if (RunKpis::isMeasurement(r))
                measured.push_back(r);
    const auto design = SequentialDesign::ofRuns(measured);
    std::vector<KpiComparison> out;
    for (const auto& d : RunKpis::definitions()) {
        std::vector<double> startsA, startsB;
        auto va = column(runsA, d.name, &startsA), vb = column(runsB, d.name, &startsB);
        if (va.empty() || vb.empty())
            continue;
        const bool share = d.inPoints;
        if (share && allZero(va) && allZero(vb))
            continue; // neither side spent time there: a row of zeros says nothing
        const bool directional = !share && (storage || !deviceFigure(d.name));
        auto k = make(d, std::move(va), std::move(vb), directional, share, design);
        if (actualSend && d.name.starts_with("ttft_") && !d.name.ends_with("_actual_send"))
            k.note = "from the actual send on every run: the comparison mixes tierscope's "
                     "open-loop runs with imported runs of another client (vllm bench serve, "
                     "AIPerf, guidellm), which time TTFT so";
        if (d.name == "joules_per_output_token")
            markIntegratedEnergy(k, runsA, runsB);
        k.startsA = std::move(startsA);
        k.startsB = std::move(startsB);
        if (k.gateOnLevel)
            for (const auto& [start, run] : runsB)
                if (run.count(RunKpis::kIssued) && run.count(d.name)) {
                    k.issuedB += run.at(RunKpis::kIssued);
                    k.failedB += run.at(RunKpis::kIssued) * run.at(d.name) / 100;
                }
        out.push_back(std::move(k));
    }
    return out;
}

std::vector<std::string> Comparison::excluded(const ComparisonSide& side) {
    std::vector<std::string> out;
    for (const auto& r : side.runs)
        if (!RunKpis::isMeasurement(r))
            out.push_back("run " + std::to_string(r.id) + " (" + r.status + ")");
    return out;
}

std::vector<Comparison::RunCheck> Comparison::runChecks(const ComparisonSide& side) {
    std::vector<RunCheck> out;
    for (std::size_t i = 0; i < side.runs.size(); ++i) {
        const auto& r = side.runs[i];
        if (!RunKpis::isMeasurement(r))
            continue;
        if (i < side.requests.size())
            for (const auto& conflict : RunKpis::summaryConflicts(r, side.requests[i]))
                out.push_back({r.id, "summary_consistency", "warn", conflict});
        // The bytes route beside the run's own checks: the layers' bytes side by side, and
        // each known confound a warning on the run.
        if (i < side.timelines.size() && !side.timelines[i].bytesRoute.empty()) {
            const auto& route = side.timelines[i].bytesRoute;
            out.push_back({r.id, "bytes_route", "info", route.text()});
            for (const auto& c : route.confounds())
                out.push_back({r.id, "bytes_route " + c.id, "warn", c.text});
        }
        const auto summary = nlohmann::json::parse(r.summaryJson, nullptr, false);
        if (!summary.is_object())
            continue;
        if (const auto it = summary.find("validity"); it != summary.end() && it->is_array())
            for (const auto& c : *it)
                if (c.is_object())
                    out.push_back({r.id, c.value("check", "check"), c.value("status", ""),
                                   c.value("detail", "")});
        if (const auto it = summary.find("reset"); it != summary.end() && it->is_array())
            for (const auto& step : *it)
                if (step.is_object())
                    out.push_back({r.id, "reset " + step.value("step", ""),
                                   step.value("ok", false) ? "ok" : "failed",
                                   step.value("detail", "")});
        if (const auto it = summary.find("populate"); it != summary.end() && it->is_object()) {
            const auto ttft = it->find("median_ttft_ms");
            char text[64] = "n/a";
            if (ttft != it->end() && ttft->is_number())
                std::snprintf(text, sizeof text, "%.2f ms", ttft->get<double>());
            out.push_back(
                {r.id, "populate phase", "info",
                 std::to_string(it->value("completed", 0L)) + " documents, median TTFT " + text});
        }
    }
    return out;
}

std::vector<Comparison::Check> Comparison::validity(const ComparisonSide& side) {
    std::vector<Check> out;
    for (const auto& c : runChecks(side))
        if (c.status == "fail" || c.status == "warn")
            out.push_back({c.status == "fail", "run " + std::to_string(c.run) + ": " + c.name +
                                                   " " + c.status + ": " + c.detail});
    return out;
}

std::vector<std::string> Comparison::checks(const ComparisonSide& side) {
    std::vector<std::string> out;
    for (const auto& c : runChecks(side)) {
        const std::string run = "run " + std::to_string(c.run) + ": ";
        if (c.status == "info")
            out.push_back(run + c.name + ": " + c.detail);
        else if (c.status == "pass" || c.status == "ok" || c.status == "failed")
            out.push_back(run + c.name + " " + c.status + ": " + c.detail);
    }
    return out;
}

std::set<std::string> Comparison::variants(const ComparisonSide& side) {
    std::set<std::string> out;
    for (const auto& r : side.runs)
        if (RunKpis::isMeasurement(r))
            out.insert(RunKpis::variant(r));
    return out;
}

std::map<BottleneckClassifier::Class, double> Comparison::shares(const ComparisonSide& side) {
    std::map<BottleneckClassifier::Class, double> sum;
    int runs = 0;
    for (std::size_t i = 0; i < side.runs.size() && i < side.timelines.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]) || side.timelines[i].shares.empty())
            continue;
        ++runs;
        for (const auto& [c, share] : side.timelines[i].shares)
            sum[c] += share;
    }
    for (auto& [c, share] : sum)
        share /= runs;
    return sum;
}

} // namespace tierscope
