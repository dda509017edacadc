#pragma once

#include <string>
#include <toml++/toml.h>
#include <vector>

namespace tierscope {

struct ExperimentPlan;

// The keys of a plan that say how many runs it makes and what they are judged against:
// `repetitions` (a number, or "auto" with `max_repetitions`: SequentialDesign), `calibrate`
// and `calibration_runs` (an A/A calibration of the first arm first: NoiseFloor),
// `noise_floor` (an earlier calibration's session) and `[expected]` (the change each gated
// KPI is expected to show, for the runs a gate needs). Kept beside ExperimentPlan's parser so
// its keys stay in one table each.
class PlanDesignKeys {
  public:
    template <class Key, class Kind> static void addKeys(std::vector<Key>& keys, Kind any) {
        for (const char* name : {"repetitions", "max_repetitions", "calibrate", "calibration_runs",
                                 "noise_floor", "expected"})
            keys.push_back({name, any});
    }
    // Reads them into the plan; throws std::runtime_error naming the line.
    static void read(const toml::table& doc, ExperimentPlan& plan);
    // What needs the whole plan: "auto" needs gates to stop on and no load sweep (whose
    // bisection is its own stopping rule), and the most runs the plan can make stay within
    // ExperimentPlan::kMaxRuns (a plan's schedule is held whole; 50 million repetitions took
    // 2 GB and died).
    static void check(const ExperimentPlan& plan);
    // The repetitions the plan may run: max_repetitions under "auto", else repetitions.
    static int mostRepetitions(const ExperimentPlan& plan);
};

} // namespace tierscope
