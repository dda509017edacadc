#pragma once

#include "core/ExperimentPlan.h"

#include <vector>

namespace tierscope {

// The order an experiment's runs go in. For each variant, the arms alternate within every
// repetition (A B A B ..., or a seeded shuffle of the arms per repetition), so drift on a shared
// machine hits every arm alike. Warm-up repetitions come first and are not measured.
struct ScheduledRun {
    std::size_t arm = 0;
    ExperimentPlan::Variant variant;
    int repetition = 0; // 1-based; 0 for warm-up
    bool warmup = false;
};

class RunSchedule {
  public:
    static std::vector<ScheduledRun> build(const ExperimentPlan& plan);
};

} // namespace tierscope
