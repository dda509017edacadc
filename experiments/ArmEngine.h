#pragma once

#include "experiments/EngineProcess.h"
#include "experiments/ExperimentPlan.h"

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// The engine an arm starts and stops around its runs (`engine_start`): started in a process
// group of its own and waited for until it answers, stopped with its whole group until its
// port is free, so the next arm cannot be answered by it; and the check that no two arms were
// answered by one engine process.
class ArmEngine {
  public:
    using Say = std::function<void(const std::string&)>;
    static constexpr std::size_t kLogKept = 16 * 1024; // of the engine's output, in a summary

    // Starts the arm's engine and waits until it answers (engine_ready, up to ready_timeout);
    // the reason for the run's summary when it does not, with the end of its output.
    static std::optional<nlohmann::json> start(std::unique_ptr<EngineProcess>& engine,
                                               const ExperimentPlan::Arm& arm,
                                               const std::map<std::string, std::string>& env,
                                               const std::atomic<bool>& cancel, const Say& say);
    // `log`: the end of its output, read once the group is gone.
    static void stop(std::unique_ptr<EngineProcess>& engine, const ExperimentPlan::Arm& owner,
                     const Say& say, std::string* log = nullptr);
    // A run answered by the process that answered another arm of the same experiment
    // compared that process with itself: fail.
    static nlohmann::json
    identityCheck(const nlohmann::json& identity, const std::string& arm,
                  const std::vector<std::pair<std::string, nlohmann::json>>& seen);
};

} // namespace tierscope
