#include "core/compare/Comparison.h"

#include "core/compare/RunKpis.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

namespace tierscope {

namespace {

using RunValues = std::vector<std::map<std::string, double>>;

// Each measured run's KPIs, in run order.
RunValues runValues(const ComparisonSide& side) {
    RunValues out;
    for (std::size_t i = 0; i < side.runs.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]))
            continue;
        static const std::vector<StoredRequest> none;
        const auto& requests = i < side.requests.size() ? side.requests[i] : none;
        const RunTimeline* timeline = i < side.timelines.size() ? &side.timelines[i] : nullptr;
        out.push_back(RunKpis::of(side.runs[i], requests, timeline));
    }
    return out;
}

std::vector<double> column(const RunValues& runs, const std::string& name) {
    std::vector<double> out;
    for (const auto& run : runs)
        if (const auto it = run.find(name); it != run.end())
            out.push_back(it->second);
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

KpiComparison make(const RunKpis::Definition& d, std::vector<double> a, std::vector<double> b) {
    KpiComparison k;
    k.name = d.name;
    k.unit = d.unit;
    k.lowerIsBetter = d.lowerIsBetter;
    k.gateOnLevel = d.gateOnLevel;
    k.note = d.note;
    k.a = mean(a);
    k.b = mean(b);
    k.countA = a.size();
    k.countB = b.size();
    if (const auto w = TInterval::welch(a, b))
        k.interval = w->interval;
    k.ratioCi = TInterval::welchRatio(a, b);
    k.runsA = std::move(a);
    k.runsB = std::move(b);
    return k;
}

} // namespace

std::vector<KpiComparison> Comparison::compare(const ComparisonSide& a, const ComparisonSide& b) {
    const auto runsA = runValues(a), runsB = runValues(b);
    std::vector<KpiComparison> out;
    for (const auto& d : RunKpis::definitions()) {
        auto va = column(runsA, d.name), vb = column(runsB, d.name);
        if (va.empty() || vb.empty())
            continue;
        const bool share = d.name.size() > 6 && d.name.ends_with("_share");
        if (share && allZero(va) && allZero(vb))
            continue; // neither side spent time there: a row of zeros says nothing
        auto k = make(d, std::move(va), std::move(vb));
        k.directional = !share;
        if (k.gateOnLevel)
            for (const auto& run : runsB)
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
    for (const auto& r : side.runs) {
        if (!RunKpis::isMeasurement(r))
            continue;
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
