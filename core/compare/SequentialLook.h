#pragma once

#include "core/compare/ComparisonResult.h"
#include "core/compare/Gate.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One look of an experiment that runs until its gates are decided: every gate of every
// comparison with its verdict, its interval and what it still needs. The runner stops on it,
// the CLI and the GUI's experiment dialog show it, and the session keeps it as an event.
struct SequentialLook {
    struct GateState {
        std::string comparison; // "B label vs A label"
        std::string gate;       // its text
        Gate::Verdict verdict = Gate::Verdict::Inconclusive;
        std::string reason;
        std::optional<double> change;    // B/A - 1
        std::optional<double> lo, hi;    // the change's interval, as fractions
        std::size_t runsPerArm = 0;      // the fewer of the two sides' measured runs
        std::optional<int> neededPerArm; // undecided: the runs per arm that would decide it
    };
    std::vector<GateState> gates;
    bool decided = false; // every gate passed or failed
    bool invalid = false; // a comparison is INVALID: its gates are not judged
    // The most further runs per arm an undecided gate needs; absent when one cannot say.
    std::optional<int> moreRunsPerArm;

    static SequentialLook of(const std::vector<ComparisonResult>& comparisons);
    // "need about 6 more runs per arm (ttft_p50 <= -25%)", or why that cannot be said.
    std::string needText() const;
    std::string toJsonText() const;
};

} // namespace tierscope
