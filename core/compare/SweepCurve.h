#pragma once
#include "core/compare/KpiLevel.h"
#include "core/compare/SloBound.h"

#include <map>
#include <optional>
#include <string>
#include <vector>
namespace tierscope {
// One side's sweep: each point's KPIs over its measured runs (KpiLevel), ascending load.
struct SweepCurve {
    struct Point {
        std::string label;                    // "rate 4", "c16"
        double load = 0.0;                    // the rate (req/s) or the concurrency
        std::string probe;                    // "grid" or "bisection"
        std::map<std::string, KpiLevel> kpis; // RunKpis names: request_throughput, ttft_p99, ...
        std::optional<bool> holds;            // all SLOs hold on the interval; nullopt without SLOs
    };
    std::string series; // the side's label
    std::string mode;   // "rate" or "concurrency"
    std::vector<Point> points;
    std::vector<SloBound> slos;
};
} // namespace tierscope
