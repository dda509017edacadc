#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonResult.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The four charts of an A/B comparison, as SVG (see SvgChart).
class ComparisonCharts {
  public:
    enum class Kind { TtftCdf, KpiBars, Timelines, Bottlenecks };

    static std::vector<Kind> all();
    static const char* name(Kind k); // "ttft-cdf", "kpi-bars", "timelines", "bottlenecks"
    static const char* title(Kind k);
    static std::optional<Kind> parse(const std::string& name);

    static std::string render(Kind kind, const ComparisonSide& a, const ComparisonSide& b,
                              const std::vector<KpiComparison>& kpis, int width = 900,
                              int height = 480);
    // All four into result.charts, for a view that shows them (an HTML report).
    static void attach(ComparisonResult& result, const ComparisonSide& a, const ComparisonSide& b,
                       int width = 900, int height = 480);
};

} // namespace tierscope
