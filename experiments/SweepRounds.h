#pragma once

#include "experiments/ExperimentPlan.h"
#include "experiments/RunSchedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// The bisection of a plan's load sweep, one round at a time, so that it can follow the grid
// inside the runner's schedule. After the last run of a sweep's round (the grid is round 0),
// each arm's runs of this session are read back from the store as `compare` reads them
// (SweepCapacity: its points, whether the SLOs hold there), SloSearch takes one step between
// the arm's highest point that holds and its first that fails, and the round's runs are the
// arms' probes, each measured by the plan's repetitions and interleaved as the grid is. Each
// arm bisects towards its own capacity; one whose SLOs hold everywhere, or nowhere, or whose
// bracket is two adjacent whole concurrencies, probes no more.
class SweepRounds {
  public:
    // The runs to insert after schedule[index]: none unless it ends a round of a sweep with
    // SLOs that has bisection steps left. `experiment` is the runs' experiment name.
    static std::vector<ScheduledRun> next(const ExperimentPlan& plan,
                                          const std::vector<ScheduledRun>& schedule,
                                          std::size_t index, const std::string& experiment,
                                          Store& store, std::int64_t session);
    // The point one arm's SLO search probes next, from its runs so far; nullopt: none.
    static std::optional<double> probe(const PlanSweep& sweep, Store& store,
                                       const std::string& experiment, const std::string& arm,
                                       std::int64_t session);
};

} // namespace tierscope
