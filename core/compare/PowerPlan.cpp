#include "core/compare/PowerPlan.h"

#include "core/compare/KpiComparison.h"
#include "core/compare/NoiseFloor.h"
#include "core/compare/RunKpis.h"
#include "core/stats/GatePower.h"

#include <cmath>
#include <cstdio>

namespace tierscope {

namespace {

std::string cvText(double cv) {
    char text[32];
    std::snprintf(text, sizeof text, "CV %.1f %%", cv * 100);
    return text;
}

// With an expected change: the runs that decide the gate, and whether the budget holds them.
std::string withExpected(const Gate& gate, double gateLog, double expected, double sigma,
                         const PowerPlan& p) {
    const double trueLog = std::log1p(expected);
    const bool passes = gate.atMost ? trueLog <= gateLog : trueLog >= gateLog;
    std::string out = " with a true " + KpiComparison::percent(expected) + ": ";
    const auto n =
        GatePower::runsPerArm(sigma, trueLog, gateLog, 0.8, p.confidence, Gate::kMaxRunsPerArm);
    if (!n)
        return out + "not decidable in " + std::to_string(Gate::kMaxRunsPerArm) +
               " runs per arm: the expected change is at the gate's threshold";
    out += std::to_string(*n) + " runs per arm to " + (passes ? "pass" : "fail") + " it";
    if (*n > p.budgetPerArm)
        out += ", more than the plan's " + std::to_string(p.budgetPerArm) +
               ": the gate's margin is within the noise at this budget";
    return out;
}

// Without one: the true changes the budget decides at 80 % power.
std::string withoutExpected(double gateLog, double sigma, const PowerPlan& p) {
    const double margin = GatePower::decidableMargin(sigma, p.budgetPerArm, 0.8, p.confidence);
    if (!std::isfinite(margin))
        return ": " + std::to_string(p.budgetPerArm) + " runs per arm decide nothing";
    return ": " + std::to_string(p.budgetPerArm) +
           " runs per arm decide it when the true change is below " +
           KpiComparison::percent(std::expm1(gateLog - margin)) + " or above " +
           KpiComparison::percent(std::expm1(gateLog + margin)) +
           " (set [expected] for the runs it needs)";
}

} // namespace

std::vector<std::string> PowerPlan::lines() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < gates.size(); ++i) {
        const auto& gate = gates[i];
        const std::string name = "G" + std::to_string(i + 1) + " " + gate.text;
        const auto* d = RunKpis::find(gate.kpi);
        const auto gateLog = gate.thresholdLog();
        if (!gateLog || (d && (d->gateOnLevel || d->armLevel || d->inPoints))) {
            out.push_back(name + ": no power figure (not a ratio of run values)");
            continue;
        }
        std::vector<std::pair<double, std::string>> spreads; // sigma, its source
        const NoiseFloor::Kpi* calibrated = nullptr;
        if (floor)
            if (const auto it = floor->kpis.find(gate.kpi); it != floor->kpis.end())
                calibrated = &it->second;
        if (calibrated)
            spreads.emplace_back(calibrated->sigma, cvText(calibrated->cv) +
                                                        " (calibration, session " +
                                                        std::to_string(floor->session) + ")");
        else
            for (const double cv : assumedCvs)
                spreads.emplace_back(GatePower::sigmaOfCv(cv), cvText(cv) + " (assumed)");
        const auto expected = this->expected.find(gate.kpi);
        for (const auto& [sigma, source] : spreads)
            out.push_back(name + " at " + source +
                          (expected != this->expected.end()
                               ? withExpected(gate, *gateLog, expected->second, sigma, *this)
                               : withoutExpected(*gateLog, sigma, *this)));
    }
    return out;
}

} // namespace tierscope
