#pragma once

#include "core/model/RunInfo.h"
#include "core/model/StoredEvent.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// A session's named sections, as the timeline's section track draws them: a two-level tree of
// groups (the warm-ups, each repetition of an experiment, a load's populate, reset and measured
// phases) holding the runs in them and the steps between runs that have no run row: a cache
// reset (from a run's "reset" outcomes) and an arm's engine start and stop (their events).
// Groups never overlap in time (an experiment's arms are interleaved, so a group per arm would
// hold the other arm's runs in its range): the range of a group is what was measured in it.
class PhaseSections {
  public:
    enum class Kind { Block, Populate, Reset, Warmup, Measured, EngineStart, EngineStop };
    struct Section {
        std::string name; // "repetition 2", "warm-up disk", "shm r2", "reset shm r2"
        Kind kind = Kind::Measured;
        std::int64_t t0Ns = 0;
        std::int64_t t1Ns = 0;
        std::int64_t runId = 0; // 0: a group, or a step that has no run row
        std::string arm;        // the arm, else the workload; empty for a group
        int repetition = 0;
        std::string status;   // the run's
        bool invalid = false; // a validity check of the run failed
        std::string detail;   // in words, for a tooltip
        std::vector<Section> children;
    };

    // Groups in time order, each with its children in time order; none without runs. Runs
    // still under way (no end) end where they started.
    static std::vector<Section> build(const std::vector<RunInfo>& runs,
                                      const std::vector<StoredEvent>& events);
    // The cache reset a run's summary reports ("reset": [{"seconds": ...}, ...]), in ns; 0
    // when it ran none.
    static std::int64_t resetNs(const std::string& summaryJson);
};

} // namespace tierscope
