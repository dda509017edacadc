#pragma once

#include "core/analysis/BytesRoute.h"
#include "core/compare/Comparison.h"
#include "core/compare/Gate.h"
#include "core/compare/KpiComparison.h"
#include "core/compare/SweepCurve.h"
#include "core/model/DeviceRecord.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// What an A/B comparison decided, and the evidence it stands on: the KPI rows with their one
// interval, the gate verdicts, the runs' validity checks and the provenance. ComparisonBuilder
// makes it; reports, the GUI and the exit code only show it.
struct ComparisonResult {
    struct Share {
        std::string bottleneck;     // "storage-bound", ...
        std::optional<double> a, b; // 0..1; absent: that side has no timeline
    };
    // Rendered by the caller that shows charts (ComparisonCharts), never by the builder.
    struct Chart {
        std::string name; // "ttft-cdf", ...
        std::string title;
        std::string svg;
    };

    std::string labelA;
    std::string labelB;
    std::vector<KpiComparison> kpis;
    std::vector<std::pair<Gate, Gate::Result>> gates;
    std::vector<Share> shares;
    std::vector<std::string> excluded; // "A: run 7 (warmup)": runs that are no measurement
    // Failed validity checks of the measured runs ("B: run 9: engine_identity: ..."): the
    // comparison is INVALID and its gates are not judged. Warnings are shown, not fatal.
    std::vector<std::string> invalid;
    std::vector<std::string> warnings;
    // Every measured run's checks that passed, its cache resets and its populate phase
    // ("A: run 9: reset_prefix_cache ok ...", "A: run 9: storage_evidence pass: ...").
    std::vector<std::string> checks;
    // The same, as rows for a table: the side ('A' or 'B') and the run's check.
    std::vector<std::pair<char, Comparison::RunCheck>> runChecks;
    // Each measured run's bytes route (engine tier -> device -> paths, NIC, RDMA, GPU), for
    // the reports' table; its confounds are among the warnings already.
    struct Route {
        char side = 'A';
        std::int64_t run = 0;
        BytesRoute route;
    };
    std::vector<Route> routes;
    std::vector<Chart> charts;
    // One per side whose measured runs are a load sweep (series = the side's label): each
    // point's KPI levels, for the throughput-vs-latency chart.
    std::vector<SweepCurve> curves;
    // Where the KPIs' noise floor comes from ("A/A calibration kv-calibration/load in session
    // 12"); empty without one.
    std::string noiseFloor;
    std::string plan; // the experiment plan's TOML, when the runs came from one
    std::vector<std::string> hosts;
    std::vector<DeviceRecord> devices;
    std::string toolVersion;
    std::string generatedUtc;

    // The KPI row of that name; nullptr when neither side measured it.
    const KpiComparison* kpi(const std::string& name) const {
        for (const auto& k : kpis)
            if (k.name == name)
                return &k;
        return nullptr;
    }
};

} // namespace tierscope
