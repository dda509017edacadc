#pragma once

#include "core/compare/SweepCurve.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// `tierscope sweep --chart FILE`: the sweep's throughput against latency, each point with its
// run-level intervals and the SLO line (ComparisonCharts::capacity), as SVG, PNG or PDF.
class SweepChart {
  public:
    struct Options {
        std::string path; // its suffix names the format
        std::string size = "1200x700";
        std::string x; // RunKpis names; empty: ComparisonCharts' choice
        std::string y;
    };
    // The usage error in `o`, before anything is measured; nothing when it is drawable. `kpis`
    // are the KPIs the sweep reports; a curve needs two points, or one judged on SLOs.
    static std::optional<std::string> check(const Options& o, const std::vector<std::string>& kpis,
                                            std::size_t points, bool slos);
    // The sweep stored as `session`, read back as `compare` reads a sweep side
    // (SweepCapacity::curve), so this chart and compare's show the same points; nullopt with
    // `why` when the session is not a sweep.
    static std::optional<SweepCurve> curveOf(Store& store, std::int64_t session,
                                             const std::string& series, std::string& why);
    // Writes the chart; an error message, empty on success.
    static std::string write(const SweepCurve& curve, const Options& o);
};

} // namespace tierscope
