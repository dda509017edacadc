#pragma once

#include "experiments/ExperimentPlan.h"

#include <vector>

namespace tierscope {

// The order an experiment's runs go in. For each variant, every arm runs once per repetition:
// A B B A A B ... (abba: the order reverses every other repetition, so a drift that is linear in
// time adds the same to every arm's mean over an even number of repetitions), A B A B
// (interleaved), or a seeded shuffle per repetition (random). Warm-up repetitions come first
// and are not measured. A load sweep runs every arm at every point in each repetition, the
// points in ascending order (repetition 1 of every point, then repetition 2, ...), each point's
// arms in the order above; its warm-up runs are at its lowest point.
struct ScheduledRun {
    std::size_t arm = 0;
    ExperimentPlan::Variant variant;
    int repetition = 0; // 1-based; 0 for warm-up
    bool warmup = false;
    // A load sweep's run (PlanSweep): its point, and its round, 0 for the grid, then each
    // bisection round the runner adds once the round before it is measured (SweepRounds).
    double sweepPoint = 0;
    int sweepRound = 0;
};

class RunSchedule {
  public:
    static std::vector<ScheduledRun> build(const ExperimentPlan& plan);
    // `count` more measured repetitions from `first` (1-based) of every variant, in the plan's
    // order (abba keeps alternating by the repetition's parity): the next block of an
    // experiment that runs until its gates are decided.
    static std::vector<ScheduledRun> block(const ExperimentPlan& plan, int first, int count);
};

} // namespace tierscope
