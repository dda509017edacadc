#pragma once

#include "core/compare/SweepCurve.h"
#include "core/report/SvgChart.h"

#include <string>
#include <vector>

namespace tierscope {

// Throughput against latency for one or more load sweeps, the curve `vllm bench sweep` and
// AIPerf draw, with what they leave out: each point's 95 % run-level interval on both axes,
// and the SLO it is judged against. A point whose SLOs are not shown to hold is hollow, so
// the capacity a reader takes from the chart is the one the runs defend. Drawn as SVG text
// with SvgChart's pieces (no Qt).
class CapacityChart {
  public:
    struct Series {
        std::string name;  // the legend's
        std::string color; // CSS colour
        const SweepCurve* curve = nullptr;
    };
    // RunKpis names: x a throughput, y a latency (unit "s") or any KPI with a unit.
    struct Axes {
        std::string x;
        std::string y;
    };

    // `style`: the view's colours (SvgChart's); its text size is not followed.
    CapacityChart(int width, int height, std::string title, SvgStyle style = {});

    // Empty names in `wanted` are chosen: x output_throughput where a point has it, else
    // request_throughput; y the first latency an SLO bounds, else ttft_p99.
    static Axes axesOf(const std::vector<const SweepCurve*>& curves, Axes wanted = {});
    // The SLO's text as the chart prints it: "ttft_p99 <= 2 s", "tpot_p99 <= 100 ms".
    static std::string sloText(const SloBound& slo);

    std::string render(const std::vector<Series>& series, const Axes& axes) const;

  private:
    int m_width;
    int m_height;
    std::string m_title;
    SvgStyle m_style;
};

} // namespace tierscope
