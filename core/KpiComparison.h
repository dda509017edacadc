#pragma once

#include "core/Bootstrap.h"

#include <optional>
#include <string>

namespace tierscope {

// One KPI of an A/B comparison.
struct KpiComparison {
    std::string name; // e.g. "ttft_p50"
    std::string unit; // SI: "s", "tok/s", "GB/s", "req/s"
    bool lowerIsBetter = true;
    double a = 0.0;
    double b = 0.0;
    std::optional<Bootstrap::Interval> interval; // of b - a, 95 %
    std::size_t countA = 0;
    std::size_t countB = 0;
    std::string sampleKind; // "requests" or "runs"

    double difference() const { return b - a; }
    double relative() const { return a != 0.0 ? (b - a) / a : 0.0; }
    double ratio() const { return a != 0.0 ? b / a : 0.0; }
    // Whether B is better than A by the point estimates.
    bool improved() const { return lowerIsBetter ? b < a : b > a; }
};

} // namespace tierscope
