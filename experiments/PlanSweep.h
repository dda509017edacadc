#pragma once

#include "core/compare/SloBound.h"

#include <string>
#include <vector>

namespace tierscope {

// A plan's load sweep: a load [[workload]] with sweep_rates (open loop) or sweep_concurrency
// (closed loop), optionally with SLOs. Every arm runs every grid point, the repetitions
// interleaved across the points and the arms (RunSchedule); then, with SLOs, each arm bisects
// towards its own capacity (SweepRounds), each probe measured by the plan's repetitions. The
// runs stay the arm's runs of the experiment; their parameters name the point
// (sweep_point, rate or concurrency, sweep_mode, sweep_probe) and the SLOs, so `compare`
// reads each arm's capacity back from the store (SweepCapacity).
struct PlanSweep {
    bool rate = true;           // sweep_rates; false: sweep_concurrency
    std::vector<double> points; // ascending, each once
    std::vector<SloBound> slos;
    int bisectSteps = 3;
    int sloLine = 0; // where the plan gives the SLOs, for errors found later

    const char* mode() const { return rate ? "rate" : "concurrency"; }
};

} // namespace tierscope
