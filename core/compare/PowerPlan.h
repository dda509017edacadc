#pragma once

#include "core/compare/Gate.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

class NoiseFloor;

// Before anything runs (`tierscope run --dry-run`): for each gate, the runs per arm that decide
// it at 80 % power (GatePower) for the change the plan expects, or, without one, the true
// changes the plan's budget can decide. The run-to-run spread comes from a calibration's noise
// floor when the plan names one, else from a few typical CVs, labelled as assumed.
struct PowerPlan {
    std::vector<Gate> gates;
    std::map<std::string, double> expected; // KPI -> expected change, a fraction
    const NoiseFloor* floor = nullptr;
    int budgetPerArm = 3;     // the runs per arm the plan may make
    double confidence = 0.95; // each look's level
    std::vector<double> assumedCvs = {0.02, 0.05, 0.10};

    // One line per gate and spread: "G1 ttft_p50 <= -25% at CV 5 % (assumed) with a true
    // -30 %: 4 runs per arm".
    std::vector<std::string> lines() const;
};

} // namespace tierscope
