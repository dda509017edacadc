#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonResult.h"
#include "core/compare/SweepCurve.h"
#include "core/report/SvgChart.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The four charts of an A/B comparison, and throughput against latency where both sides are
// sweeps, as SVG (see SvgChart, CapacityChart).
class ComparisonCharts {
  public:
    enum class Kind { TtftCdf, KpiBars, Timelines, Bottlenecks };

    static std::vector<Kind> all();
    static const char* name(Kind k); // "ttft-cdf", "kpi-bars", "timelines", "bottlenecks"
    static const char* title(Kind k);
    static std::optional<Kind> parse(const std::string& name);

    // `style`: the view's colours and text size (SvgChart::Style); the report's by default.
    static std::string render(Kind kind, const ComparisonSide& a, const ComparisonSide& b,
                              const std::vector<KpiComparison>& kpis, int width = 900,
                              int height = 480, const SvgChart::Style& style = {});
    // All four into result.charts, for a view that shows them (an HTML report), and the
    // capacity chart where the sides are sweeps.
    static void attach(ComparisonResult& result, const ComparisonSide& a, const ComparisonSide& b,
                       int width = 900, int height = 480, const SvgChart::Style& style = {});

    // Throughput against latency of each sweep (A, B: the comparison's colours), each point
    // with its intervals on both axes and the SLO line (CapacityChart). `x` and `y` are
    // RunKpis names; empty: output throughput, and the latency the SLO bounds (else TTFT p99).
    static constexpr const char* kCapacity = "capacity";
    // "Throughput vs TTFT p99 (95 % intervals)"; for a tab (`tab`), which shares its row with
    // five others in the compare view, without what the chart's own title says.
    static std::string capacityTitle(const std::vector<SweepCurve>& curves,
                                     const std::string& y = {}, bool tab = false);
    static std::string capacity(const std::vector<SweepCurve>& curves, int width = 900,
                                int height = 480, const std::string& x = {},
                                const std::string& y = {}, const SvgChart::Style& style = {});
    // The capacity chart into result.charts; nothing without a curve.
    static void attachCapacity(ComparisonResult& result, const std::vector<SweepCurve>& curves,
                               int width = 900, int height = 480,
                               const SvgChart::Style& style = {});
};

} // namespace tierscope
