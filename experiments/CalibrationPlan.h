#pragma once

#include "experiments/ExperimentPlan.h"

#include <optional>

namespace tierscope {

// The A/A calibration of a plan (`tierscope run PLAN --calibrate`, `calibrate = true`): its
// first arm against an identical copy of itself ("<label>-again"), in the plan's order, with
// its workloads, warm-up and gates, `runs` repetitions (default the plan's calibration_runs).
// Its experiments are named "<plan>-calibration/...", which NoiseFloor finds.
class CalibrationPlan {
  public:
    static ExperimentPlan of(const ExperimentPlan& plan, std::optional<int> runs = std::nullopt);
};

} // namespace tierscope
