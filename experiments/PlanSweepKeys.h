#pragma once

#include "experiments/PlanSweep.h"

#include <optional>
#include <string>
#include <toml++/toml.h>
#include <vector>

namespace tierscope {

struct ExperimentPlan;

// The sweep keys of a plan's load [[workload]]: sweep_rates = [1, 2, 4] or
// sweep_concurrency = [1, 4, 16] (one of them), slo = ["ttft_p99<=2s"] and bisect_steps
// (default 3). Kept beside ExperimentPlan's parser so its keys stay in one table each.
class PlanSweepKeys {
  public:
    // The workload's sweep, nullopt without sweep keys (or outside a load workload, where
    // checkKeys refuses them as unknown). Throws std::runtime_error naming the line, as the
    // plan's parser does: a sweep with rate, concurrency or a trace, an SLO without a sweep, a
    // malformed SLO or point.
    static std::optional<PlanSweep> take(const toml::table& workload);
    // The sweep keys, for the plan's table of a load workload's keys (take checks their values).
    template <class Key, class Kind> static void addKeys(std::vector<Key>& keys, Kind any) {
        for (const char* name : {"sweep_rates", "sweep_concurrency", "slo", "bisect_steps"})
            keys.push_back({name, any});
    }
    static bool owns(const std::string& key);
    // What needs the whole plan: SLOs need two repetitions (an SLO holds on the upper end of a
    // run-level interval, which one run does not have), and the sweeps' runs count towards the
    // plan's limit (ExperimentPlan::kMaxRuns): each arm runs every point and bisection probe.
    static void check(const ExperimentPlan& plan);
};

} // namespace tierscope
