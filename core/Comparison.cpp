#include "core/Comparison.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

using RequestValue = std::function<std::optional<double>(const StoredRequest&)>;
using RunValue = std::function<std::optional<double>(const RunInfo&, const nlohmann::json&)>;

struct RequestKpi {
    const char* name;
    const char* unit;
    RequestValue value;
    Bootstrap::Statistic statistic;
};

struct RunKpi {
    const char* name;
    const char* unit;
    bool lowerIsBetter;
    RunValue value;
};

std::vector<double> requestValues(const ComparisonSide& side, const RequestValue& value) {
    std::vector<double> out;
    for (const auto& run : side.requests)
        for (const auto& r : run)
            if (r.ok)
                if (const auto v = value(r))
                    out.push_back(*v);
    return out;
}

std::vector<double> runValues(const ComparisonSide& side, const RunValue& value) {
    std::vector<double> out;
    for (const auto& run : side.runs) {
        if (run.status != "completed")
            continue; // a failed or cancelled run is no measurement
        const auto summary = nlohmann::json::parse(run.summaryJson, nullptr, false);
        if (const auto v = value(run, summary.is_object() ? summary : nlohmann::json::object()))
            out.push_back(*v);
    }
    return out;
}

std::optional<double> field(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? std::optional<double>(it->get<double>())
                                            : std::nullopt;
}

RunValue summaryField(const char* key, const char* workload = nullptr) {
    return [key, workload](const RunInfo& run, const nlohmann::json& s) -> std::optional<double> {
        if (workload && run.workload != workload)
            return std::nullopt;
        return field(s, key);
    };
}

RunValue restoreQuantile(const char* q) {
    return [q](const RunInfo& run, const nlohmann::json& s) -> std::optional<double> {
        if (run.workload != "storage/kv-restore" || !s.contains("restore_seconds"))
            return std::nullopt;
        return field(s["restore_seconds"], q);
    };
}

RunValue positive(RunValue value) {
    return [value](const RunInfo& r, const nlohmann::json& s) -> std::optional<double> {
        const auto v = value(r, s);
        return v && *v > 0 ? v : std::nullopt;
    };
}

const std::vector<RequestKpi>& requestKpis() {
    static const std::vector<RequestKpi> kpis = {
        {"ttft_p50", "s", [](const StoredRequest& r) { return r.ttftS; },
         Bootstrap::percentile(50)},
        {"ttft_p90", "s", [](const StoredRequest& r) { return r.ttftS; },
         Bootstrap::percentile(90)},
        {"ttft_p99", "s", [](const StoredRequest& r) { return r.ttftS; },
         Bootstrap::percentile(99)},
        {"itl_mean", "s", [](const StoredRequest& r) { return r.itlMeanS; }, Bootstrap::mean()},
        {"tpot_mean", "s",
         [](const StoredRequest& r) -> std::optional<double> {
             if (!r.e2eS || !r.ttftS || !r.outputTokens || *r.outputTokens < 2)
                 return std::nullopt;
             return (*r.e2eS - *r.ttftS) / (*r.outputTokens - 1);
         },
         Bootstrap::mean()},
        {"e2el_p50", "s", [](const StoredRequest& r) { return r.e2eS; }, Bootstrap::percentile(50)},
        {"e2el_p99", "s", [](const StoredRequest& r) { return r.e2eS; }, Bootstrap::percentile(99)},
    };
    return kpis;
}

const std::vector<RunKpi>& runKpis() {
    static const std::vector<RunKpi> kpis = {
        {"output_throughput", "tok/s", false, summaryField("output_throughput")},
        {"request_throughput", "req/s", false, summaryField("request_throughput")},
        {"goodput", "req/s", false, summaryField("request_goodput")},
        {"read_gb_per_s", "GB/s", false, positive(summaryField("read_gb_per_s"))},
        {"write_gb_per_s", "GB/s", false, positive(summaryField("write_gb_per_s"))},
        {"model_load_time", "s", true, summaryField("seconds", "storage/model-load")},
        {"checkpoint_time", "s", true, summaryField("seconds", "storage/checkpoint-save")},
        {"kv_restore_p50", "s", true, restoreQuantile("p50")},
        {"kv_restore_p99", "s", true, restoreQuantile("p99")},
    };
    return kpis;
}

using TimelineValue = std::function<std::optional<double>(const RunTimeline&)>;

std::vector<double> timelineValues(const ComparisonSide& side, const TimelineValue& value) {
    std::vector<double> out;
    for (std::size_t i = 0; i < side.runs.size() && i < side.timelines.size(); ++i)
        if (side.runs[i].status == "completed")
            if (const auto v = value(side.timelines[i]))
                out.push_back(*v);
    return out;
}

struct TimelineKpi {
    std::string name;
    const char* unit;
    bool lowerIsBetter;
    TimelineValue value;
};

std::vector<TimelineKpi> timelineKpis(const ComparisonSide& a, const ComparisonSide& b) {
    std::vector<TimelineKpi> kpis = {
        {"gpu_busy_mean", "%", false, [](const RunTimeline& t) { return t.gpuBusyMeanPct; }},
        {"read_gb_per_s_peak", "GB/s", false,
         [](const RunTimeline& t) {
             return t.readPeakGBps && *t.readPeakGBps > 0 ? t.readPeakGBps : std::nullopt;
         }},
        {"write_gb_per_s_peak", "GB/s", false,
         [](const RunTimeline& t) {
             return t.writePeakGBps && *t.writePeakGBps > 0 ? t.writePeakGBps : std::nullopt;
         }},
    };
    const auto sharesA = Comparison::shares(a);
    const auto sharesB = Comparison::shares(b);
    for (const auto c : BottleneckClassifier::all()) {
        const auto inA = sharesA.find(c), inB = sharesB.find(c);
        if ((inA == sharesA.end() || inA->second == 0) &&
            (inB == sharesB.end() || inB->second == 0))
            continue; // neither side spent time there: a row of zeros says nothing
        // Less time storage-, KV- or queue-bound is better; GPU-bound time is the goal.
        const bool lower = c != BottleneckClassifier::Class::GpuComputeBound;
        kpis.push_back({Comparison::shareKpi(c), "%", lower,
                        [c](const RunTimeline& t) -> std::optional<double> {
                            if (t.shares.empty())
                                return std::nullopt;
                            const auto it = t.shares.find(c);
                            return it == t.shares.end() ? 0.0 : it->second * 100;
                        }});
    }
    return kpis;
}

KpiComparison make(const std::string& name, const char* unit, bool lowerIsBetter,
                   std::vector<double> a, std::vector<double> b,
                   const Bootstrap::Statistic& statistic, const char* kind, std::uint64_t seed) {
    KpiComparison k;
    k.name = name;
    k.unit = unit;
    k.lowerIsBetter = lowerIsBetter;
    k.countA = a.size();
    k.countB = b.size();
    k.sampleKind = kind;
    k.interval = Bootstrap::difference(a, b, statistic, seed);
    k.a = statistic(a);
    k.b = statistic(b);
    return k;
}

} // namespace

std::vector<KpiComparison> Comparison::compare(const ComparisonSide& a, const ComparisonSide& b,
                                               std::uint64_t seed) {
    std::vector<KpiComparison> out;
    std::uint64_t kpiSeed = seed;
    for (const auto& kpi : requestKpis()) {
        auto va = requestValues(a, kpi.value);
        auto vb = requestValues(b, kpi.value);
        ++kpiSeed; // each KPI its own stream, so adding one does not shift the others
        if (!va.empty() && !vb.empty())
            out.push_back(make(kpi.name, kpi.unit, true, std::move(va), std::move(vb),
                               kpi.statistic, "requests", kpiSeed));
    }
    for (const auto& kpi : runKpis()) {
        auto va = runValues(a, kpi.value);
        auto vb = runValues(b, kpi.value);
        ++kpiSeed;
        if (!va.empty() && !vb.empty())
            out.push_back(make(kpi.name, kpi.unit, kpi.lowerIsBetter, std::move(va), std::move(vb),
                               Bootstrap::mean(), "runs", kpiSeed));
    }
    for (const auto& kpi : timelineKpis(a, b)) {
        auto va = timelineValues(a, kpi.value);
        auto vb = timelineValues(b, kpi.value);
        ++kpiSeed;
        if (!va.empty() && !vb.empty())
            out.push_back(make(kpi.name, kpi.unit, kpi.lowerIsBetter, std::move(va), std::move(vb),
                               Bootstrap::mean(), "runs", kpiSeed));
    }
    return out;
}

std::map<BottleneckClassifier::Class, double> Comparison::shares(const ComparisonSide& side) {
    std::map<BottleneckClassifier::Class, double> sum;
    int runs = 0;
    for (std::size_t i = 0; i < side.runs.size() && i < side.timelines.size(); ++i) {
        if (side.runs[i].status != "completed" || side.timelines[i].shares.empty())
            continue;
        ++runs;
        for (const auto& [c, share] : side.timelines[i].shares)
            sum[c] += share;
    }
    for (auto& [c, share] : sum)
        share /= runs;
    return sum;
}

std::string Comparison::shareKpi(BottleneckClassifier::Class c) {
    std::string name = BottleneckClassifier::name(c);
    for (auto& ch : name)
        if (ch == '-' || ch == '/')
            ch = '_';
    return name + "_share";
}

} // namespace tierscope
