#pragma once

#include "core/model/RunInfo.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// An experiment that looks at its gates after every block of repetitions and stops once each
// is decided (`repetitions = "auto"`). Looking after every block and stopping on the first
// decision would make a 95 % interval's false-pass rate grow with each look; instead every
// look's interval is at level 1 - 0.05 / looks, where looks is the most the budget allows
// (max_repetitions / 2). By the union bound the chance that any look's interval misses the
// truth is at most 5 %, whatever the looks' correlation and whatever stopped the experiment,
// so a gate's one-sided false pass stays <= 2.5 %. It is a confidence sequence over the
// budget's looks that keeps Welch's exact small-sample t-interval at each look, which the
// variance-plug-in mSPRT does not at 2 to 6 runs an arm (docs/guide/experiments.md).
struct SequentialDesign {
    static constexpr int kBlock = 2; // repetitions per look: A B B A
    int looks = 1;

    // The looks a budget of repetitions allows (one per block, a last partial block included).
    static int looksFor(int maxRepetitions);
    // The level of every look's interval.
    double confidence() const { return 1.0 - 0.05 / looks; }
    // "99.5 % at each of 10 looks (always valid)".
    std::string describe() const;
    // What the runs of such an experiment store in their params, and read back from the
    // measured runs of a comparison: the largest design among them, so mixing an earlier fixed
    // execution in never narrows the intervals.
    static constexpr const char* kParam = "sequential_looks";
    static std::optional<SequentialDesign> ofRuns(const std::vector<RunInfo>& runs);
};

} // namespace tierscope
