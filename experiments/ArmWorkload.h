#pragma once

#include "core/model/RequestRecord.h"
#include "experiments/CacheReset.h"
#include "experiments/ExperimentPlan.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class Recorder;
class WallClock;

// One run of a plan's workload on one arm, as the experiment runner measures it: the data a
// read workload needs (prepared once, outside any measurement), and the storage, load and
// cold-recovery runs with their summaries and validity checks.
class ArmWorkload {
  public:
    // A cold-recovery run's populate phase: stored as a run of its own, status "populate", which
    // no comparison counts as a measurement.
    struct Phase {
        std::vector<RequestRecord> requests;
        nlohmann::json summary;
        std::int64_t startNs = 0, endNs = 0;
    };
    // What a run measured, for the runner to store.
    struct Outcome {
        std::string workload;
        nlohmann::json params;
        nlohmann::json summary;
        std::vector<RequestRecord> requests;
        bool cancelled = false;
        std::optional<Phase> populate;
        std::optional<std::int64_t> measuredStartNs; // the run starts here, not at the populate
        nlohmann::json validity = nlohmann::json::array();
        std::string error; // a failed step inside the workload (a reset), which fails the run
    };
    using Resets = std::function<std::vector<CacheReset::Outcome>()>;
    using Say = std::function<void(const std::string&)>;

    // Reused only when the directory holds this plan's data set, completely written; another
    // size, another geometry or an interrupted preparation is prepared again.
    static void prepareData(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                            const std::atomic<bool>& cancel, const Say& say);
    static Outcome storageRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                              int concurrency, const std::atomic<bool>& cancel, Recorder& recorder);
    // What a load or cold-recovery run needs beside its workload and arm.
    struct LoadContext {
        int concurrency = 0; // 0: the workload's default
        int repetition = 0;
        const WallClock& clock;
        const std::atomic<bool>& cancel;
        std::optional<double> maxFailureRate;
        double minHitShare = 0.5;
        // The process group of the engine tierscope started for the arm (0: none, so the
        // engine's own reads are unknown).
        int enginePgid = 0;
        // A load sweep's run (the workload's sweep): its point, and whether a bisection probe.
        double sweepPoint = 0;
        bool bisection = false;
    };
    static Outcome loadRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                           const LoadContext& context);
    static Outcome coldRecoveryRun(const ExperimentPlan::Workload& w,
                                   const ExperimentPlan::Arm& arm, const LoadContext& context,
                                   const Resets& reset);

    static nlohmann::json toJson(const std::vector<CacheReset::Outcome>& outcomes);
    static std::string firstFailure(const std::vector<CacheReset::Outcome>& outcomes);
    // ", TTFT p50: populate 1.20 s, measured 0.45 s": both phases of a cold-recovery run.
    static std::string phaseTtfts(const Phase& populate, const nlohmann::json& measured);
};

} // namespace tierscope
