#pragma once

#include "core/model/DeviceRecord.h"
#include "core/report/ComparisonReport.h"
#include "experiments/ArmWorkload.h"
#include "experiments/ExperimentPlan.h"
#include "experiments/RunSchedule.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class SampleSink;
class Store;

// Runs an experiment plan: the arms interleaved as RunSchedule orders them, each run framed by
// its arm's setup and teardown commands, the machine recorded throughout into one session, and
// every run stored with its status. The CLI (`tierscope run`) and the GUI share it.
class ExperimentRunner {
  public:
    struct Step {
        std::size_t index = 0; // 0-based position in the schedule
        std::size_t total = 0;
        std::string arm;
        std::string experiment; // "<plan>/<workload>[@cN]"
        bool warmup = false;
        int repetition = 0;
        std::string point; // a load sweep's point ("rate 4", "c16"), else empty
    };
    struct StepResult {
        std::string status; // completed | warmup | failed | cancelled
        std::string detail; // the error, or a short summary
        std::int64_t runId = 0;
    };
    struct Callbacks {
        std::function<void(const Step&)> started;
        std::function<void(const Step&, const StepResult&)> finished;
        std::function<void(const std::string&)> message; // "preparing data ...", teardown errors
        // The session is recording, before the first run: its id and the devices it samples.
        std::function<void(std::int64_t, const std::vector<DeviceRecord>&)> recording;
        // repetitions = "auto": after each block, the repetitions measured so far and the
        // comparisons whose gates decided whether another block runs.
        std::function<void(int, const std::vector<ComparisonResult>&)> looked;
    };
    struct Options {
        std::string dbPath;
        std::string planText; // stored with the session, for the report
        std::chrono::milliseconds interval{200};
        std::string dropCachesPath = "/proc/sys/vm/drop_caches"; // for drop_caches = true
        SampleSink* observer = nullptr; // also gets every reading (the GUI's live buffer)
    };
    struct Result {
        std::int64_t sessionId = 0;
        std::size_t runs = 0;
        int failed = 0;
        bool incomplete = false; // cancelled, or stopped on a failure
        // repetitions = "auto": why the experiment stopped adding blocks ("every gate decided
        // after 4 repetitions", "undecided after 20 repetitions: ...").
        std::string stopped;
    };

    ExperimentRunner(ExperimentPlan plan, Options options, Callbacks callbacks);

    Result run(const std::atomic<bool>& cancel);

    static std::string experimentName(const ExperimentPlan& plan, const ExperimentPlan::Variant& v);
    // Every setup, engine, reset and teardown command, as it will run, for the user to see before
    // anything runs.
    static std::vector<std::string> commands(const ExperimentPlan& plan);
    // The first arm against each further arm, for each variant, over the runs of one session
    // (this execution of the plan: an earlier one's runs are not pooled in); gates on another
    // workload's KPI are left out.
    static std::vector<ComparisonResult> compare(Store& store, const ExperimentPlan& plan,
                                                 bool charts, std::int64_t session);
    // The plan's gate texts as gates (ExperimentPlan::parse has checked each).
    static std::vector<Gate> gates(const ExperimentPlan& plan);

  private:
    struct Context;
    using Fail = std::function<void(const std::string& status, const nlohmann::json& why)>;
    bool runStep(Context& c, std::size_t index, const std::atomic<bool>& cancel);
    void nextBlock(Context& c);
    void measure(Context& c, const Step& step, const ScheduledRun& s,
                 const std::map<std::string, std::string>& env, const std::atomic<bool>& cancel,
                 const Fail& fail);
    void storeRun(Context& c, const Step& step, const ScheduledRun& s, ArmWorkload::Outcome& out,
                  std::int64_t runStart, const std::optional<nlohmann::json>& identity);

    ExperimentPlan m_plan;
    Options m_options;
    Callbacks m_callbacks;
};

} // namespace tierscope
