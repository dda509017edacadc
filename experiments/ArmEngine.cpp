#include "experiments/ArmEngine.h"

#include "core/util/UnitFormat.h"
#include "experiments/EngineIdentity.h"
#include "experiments/HttpProbe.h"
#include "experiments/PortHolder.h"

#include <thread>

namespace tierscope {

namespace {

// engine_ready: a URL, or a path on the engine ("/health"); by default its model list.
std::string readyUrl(const ExperimentPlan::Arm& arm) {
    if (arm.engineReady.empty() || arm.engineReady.front() == '/')
        return EngineIdentity::baseUrl(arm.engineUrl) +
               (arm.engineReady.empty() ? "/v1/models" : arm.engineReady);
    return arm.engineReady;
}

std::optional<int> enginePort(const ExperimentPlan::Arm& arm) {
    return PortHolder::localPort(arm.engineUrl.empty() ? arm.engineReady : arm.engineUrl);
}

std::string seconds(std::chrono::steady_clock::duration d) {
    return UnitFormat::seconds(std::chrono::duration<double>(d).count()); // 3.5 s, 15.0 min
}

} // namespace

// Stops the engine's whole process group and waits until its port is free, so the next arm
// cannot be answered by it. `log`: the end of its output, read once the group is gone.
void ArmEngine::stop(std::unique_ptr<EngineProcess>& engine, const ExperimentPlan::Arm& owner,
                     const Say& say, std::string* log) {
    if (!engine)
        return;
    if (!engine->stop(owner.engineStopGrace))
        say(owner.label + " engine: processes of group " + std::to_string(engine->pid()) +
            " outlived SIGKILL");
    if (log)
        *log = engine->logTail(kLogKept);
    engine.reset();
    const auto port = enginePort(owner);
    if (!port)
        return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (PortHolder::listening(*port) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (PortHolder::listening(*port))
        say(owner.label + " engine stopped, but " + PortHolder::describe(*port));
}

// Starts the arm's engine and waits until it answers; the reason for the run's summary when
// it does not.
std::optional<nlohmann::json> ArmEngine::start(std::unique_ptr<EngineProcess>& engine,
                                               const ExperimentPlan::Arm& arm,
                                               const std::map<std::string, std::string>& env,
                                               const std::atomic<bool>& cancel, const Say& say) {
    // A process already on the port would answer for this arm while its engine fails to bind.
    if (const auto port = enginePort(arm); port && PortHolder::listening(*port))
        return nlohmann::json{{"error", "engine not started: " + PortHolder::describe(*port)}};
    const std::string url = readyUrl(arm);
    engine = std::make_unique<EngineProcess>(arm.expand(arm.engineStart), env);
    try {
        engine->start();
    } catch (const std::exception& e) {
        engine.reset();
        return nlohmann::json{{"error", std::string("engine not started: ") + e.what()}};
    }
    say(arm.label + " engine: pid " + std::to_string(engine->pid()) + ", waiting for " + url +
        " (up to " + seconds(arm.readyTimeout) + ")");
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + arm.readyTimeout;
    auto failed = [&](const std::string& why) {
        // Stopped first: an engine that just exited may have output still in the pipe.
        const int pid = engine->pid();
        std::string log;
        stop(engine, arm, say, &log);
        say(arm.label + " engine " + why + "; its output ends:\n" + log);
        return nlohmann::json{{"error", "engine " + why}, {"engine_pid", pid}, {"engine_log", log}};
    };
    std::string last = "no answer yet";
    for (;;) {
        if (!engine->running())
            return failed("exited (" + engine->describeExit() + ") before it was ready");
        const auto answer = HttpProbe::get(url, std::chrono::seconds(2));
        if (answer.status == 200)
            break;
        last = answer.status ? "HTTP " + std::to_string(answer.status) : answer.error;
        if (cancel)
            return failed("cancelled while it was starting");
        if (std::chrono::steady_clock::now() >= deadline)
            return failed("not ready after " + seconds(arm.readyTimeout) + ": GET " + url +
                          " last gave " + last);
        for (int i = 0; i < 5 && !cancel; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    say(arm.label + " engine ready after " + seconds(std::chrono::steady_clock::now() - started));
    return std::nullopt;
}

// The engine-identity check: a run answered by the process that answered another arm of the
// same experiment compared that process with itself.
nlohmann::json
ArmEngine::identityCheck(const nlohmann::json& identity, const std::string& arm,
                         const std::vector<std::pair<std::string, nlohmann::json>>& seen) {
    if (identity.value("source", "unknown") == "unknown")
        return {{"check", "engine_identity"},
                {"status", "warn"},
                {"detail", "the engine's identity is " + EngineIdentity::describe(identity)}};
    for (const auto& [other, id] : seen)
        if (other != arm && EngineIdentity::same(id, identity))
            return {{"check", "engine_identity"},
                    {"status", "fail"},
                    {"other_arm", other},
                    {"detail", "arm \"" + arm +
                                   "\" was answered by the engine that answered arm \"" + other +
                                   "\": " + EngineIdentity::describe(identity)}};
    return {{"check", "engine_identity"},
            {"status", "pass"},
            {"detail", EngineIdentity::describe(identity)}};
}

} // namespace tierscope
