#include "core/compare/SequentialLook.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tierscope {

SequentialLook SequentialLook::of(const std::vector<ComparisonResult>& comparisons) {
    SequentialLook out;
    bool allDecided = true, everyUndecidedKnown = true;
    for (const auto& in : comparisons) {
        out.invalid = out.invalid || !in.invalid.empty();
        for (const auto& [gate, result] : in.gates) {
            GateState g;
            g.comparison = in.labelB + " vs " + in.labelA;
            g.gate = gate.text;
            g.verdict = result.verdict;
            g.reason = result.reason;
            g.neededPerArm = result.runsPerArm;
            if (const auto* k = in.kpi(gate.kpi)) {
                g.runsPerArm = std::min(k->countA, k->countB);
                if (k->a != 0.0)
                    g.change = k->relative();
                if (const auto r = k->relativeInterval()) {
                    g.lo = r->lo;
                    g.hi = r->hi;
                }
            }
            if (g.verdict == Gate::Verdict::Inconclusive) {
                allDecided = false;
                if (g.neededPerArm)
                    out.moreRunsPerArm = std::max(out.moreRunsPerArm.value_or(0),
                                                  *g.neededPerArm - static_cast<int>(g.runsPerArm));
                else
                    everyUndecidedKnown = false;
            }
            out.gates.push_back(std::move(g));
        }
    }
    out.decided = allDecided && !out.gates.empty() && !out.invalid;
    if (!everyUndecidedKnown)
        out.moreRunsPerArm.reset();
    return out;
}

std::string SequentialLook::needText() const {
    std::string undecided;
    for (const auto& g : gates)
        if (g.verdict == Gate::Verdict::Inconclusive)
            undecided += (undecided.empty() ? "" : ", ") + g.gate;
    if (undecided.empty())
        return "every gate decided";
    if (moreRunsPerArm)
        return "need about " + std::to_string(*moreRunsPerArm) + " more run" +
               (*moreRunsPerArm == 1 ? "" : "s") + " per arm (" + undecided + ")";
    return "the runs so far cannot say how many more would decide " + undecided;
}

std::string SequentialLook::toJsonText() const {
    nlohmann::json out = {{"decided", decided}, {"invalid", invalid}};
    if (moreRunsPerArm)
        out["more_runs_per_arm"] = *moreRunsPerArm;
    out["gates"] = nlohmann::json::array();
    for (const auto& g : gates) {
        nlohmann::json j = {{"comparison", g.comparison},
                            {"gate", g.gate},
                            {"verdict", Gate::name(g.verdict)},
                            {"reason", g.reason},
                            {"runs_per_arm", g.runsPerArm}};
        if (g.change)
            j["change"] = *g.change;
        if (g.lo && g.hi)
            j["ci_change"] = {*g.lo, *g.hi};
        if (g.neededPerArm)
            j["needed_runs_per_arm"] = *g.neededPerArm;
        out["gates"].push_back(std::move(j));
    }
    return out.dump();
}

} // namespace tierscope
