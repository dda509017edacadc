#pragma once

#include "core/stats/Interval.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace tierscope {

// One KPI's level over a set of runs (one arm, one sweep point) with its 95 % run-level
// interval, on the scale the comparison reads that KPI on: where every run value is positive
// (a latency, a throughput) the geometric mean with Student's t-interval on the logs,
// transformed back, so the estimate is the figure `compare` prints for that side and the
// interval never reaches below zero; otherwise (a failure rate with a zero run) the arithmetic
// mean with its t-interval, as a level gate reads it. No interval from fewer than two runs.
struct KpiLevel {
    double estimate = 0.0;
    std::optional<Interval> interval;
    std::size_t runs = 0;
    bool geometric = false;

    // nullopt without any run value.
    static std::optional<KpiLevel> of(const std::vector<double>& runValues);
    const char* meanKind() const { return geometric ? "geometric mean" : "mean"; }
};

} // namespace tierscope
