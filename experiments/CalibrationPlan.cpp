#include "experiments/CalibrationPlan.h"

#include "core/compare/NoiseFloor.h"

namespace tierscope {

ExperimentPlan CalibrationPlan::of(const ExperimentPlan& plan, std::optional<int> runs) {
    ExperimentPlan out = plan;
    out.name = plan.name + NoiseFloor::kSuffix;
    auto copy = plan.arms.front();
    copy.label += "-again";
    out.arms = {plan.arms.front(), copy};
    out.repetitions = runs.value_or(plan.calibrationRuns);
    // A fixed design: the floor is a spread, measured on as many runs as asked, not a decision.
    out.maxRepetitions.reset();
    out.calibrate = false;
    out.noiseFloorSession.reset();
    return out;
}

} // namespace tierscope
