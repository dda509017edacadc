#pragma once

#include "workloads/IoRunner.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace tierscope {

// The fields every storage workload result shares, so reports and comparisons read them alike.
class WorkloadSummary {
  public:
    static nlohmann::json common(const char* workload, const IoRunner::Result& result);
    // mean, p50, p90, p99, min, max of a set of durations in seconds.
    static nlohmann::json distribution(const std::vector<double>& values);
};

} // namespace tierscope
