#include "experiments/ExperimentRunner.h"

#include "collectors/Recorder.h"
#include "collectors/engine/EngineMetricsMapper.h"
#include "collectors/storage/PathDevice.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/NoiseFloor.h"
#include "core/compare/SequentialDesign.h"
#include "core/compare/SequentialLook.h"
#include "core/report/ComparisonCharts.h"
#include "core/store/Store.h"
#include "core/util/Redaction.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "experiments/ArmEngine.h"
#include "experiments/ArmWorkload.h"
#include "experiments/CacheReset.h"
#include "experiments/EngineIdentity.h"
#include "experiments/EngineProcess.h"
#include "experiments/LeftoverProcesses.h"
#include "experiments/LoadSweep.h"
#include "experiments/RunSchedule.h"
#include "experiments/ShellCommand.h"
#include "experiments/SweepRounds.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

namespace tierscope {

namespace {

using Say = std::function<void(const std::string&)>;

// Processes an earlier, killed tierscope's commands left running can hold this plan's paths,
// ports and GPU memory: say so before the first run, and keep the list with the experiment.
void reportLeftovers(Store& store, std::int64_t session, std::int64_t atNs, const Say& say) {
    const auto leftovers = LeftoverProcesses::find(ProcessIdentity::self());
    if (leftovers.empty())
        return;
    const std::string list = LeftoverProcesses::describe(leftovers);
    std::string pids;
    for (const auto& l : leftovers)
        pids += " " + std::to_string(l.pid);
    say(std::to_string(leftovers.size()) +
        " process(es) started by the commands of an earlier tierscope that was killed are still "
        "running; they may hold the paths, ports or GPU memory of this plan (stop them with "
        "`kill" +
        pids + "` once you know they are not needed):\n" + list.substr(0, list.size() - 1));
    store.addEvent(session, atNs, "leftover-processes", list);
}

} // namespace

ExperimentRunner::ExperimentRunner(ExperimentPlan plan, Options options, Callbacks callbacks)
    : m_plan(std::move(plan)), m_options(std::move(options)), m_callbacks(std::move(callbacks)) {}

std::string ExperimentRunner::experimentName(const ExperimentPlan& plan,
                                             const ExperimentPlan::Variant& v) {
    const auto& w = plan.workloads[v.workload];
    return plan.name + "/" + w.kind +
           (v.concurrency > 0 ? "@c" + std::to_string(v.concurrency) : "");
}

std::vector<std::string> ExperimentRunner::commands(const ExperimentPlan& plan) {
    std::vector<std::string> out;
    for (const auto& arm : plan.arms) {
        if (!arm.setup.empty())
            out.push_back(arm.label + " setup: " + arm.expand(arm.setup));
        if (!arm.engineStart.empty())
            out.push_back(arm.label + " engine: " + arm.expand(arm.engineStart));
        if (arm.resetPrefixCache)
            out.push_back(arm.label + " reset: POST " + EngineIdentity::baseUrl(arm.engineUrl) +
                          "/reset_prefix_cache");
        if (!arm.reset.empty())
            out.push_back(arm.label + " reset: " + arm.expand(arm.reset));
        if (arm.dropCaches)
            out.push_back(arm.label + " reset: sync; echo 3 > /proc/sys/vm/drop_caches");
        if (!arm.teardown.empty())
            out.push_back(arm.label + " teardown: " + arm.expand(arm.teardown));
    }
    return out;
}

// Each arm's engine /metrics, once per endpoint, scraped for the whole session. Arms that share
// an engine URL share its series, but their runs never overlap in time, so each run's span
// holds the observations of the engine that served it; an engine that is down between its
// arm's runs shows as failed scrapes, not as zeros.
std::vector<EngineMetricsCollector::Options> engineEndpoints(const ExperimentPlan& plan) {
    std::vector<EngineMetricsCollector::Options> out;
    for (auto& url : plan.metricsEndpoints()) {
        EngineMetricsCollector::Options e;
        e.url = std::move(url);
        out.push_back(std::move(e));
    }
    return out;
}

// One execution of the plan: its recording, store and schedule, the engine running now and
// the identities seen, shared by its steps.
struct ExperimentRunner::Context {
    std::vector<ScheduledRun> schedule;
    Recorder& recorder;
    Store& store;
    const WallClock& clock;
    Say say;
    std::chrono::nanoseconds settle{0};
    Result result;
    // The running engine and the arm it belongs to.
    std::unique_ptr<EngineProcess> engine;
    std::size_t engineArm = 0;
    std::uint64_t engineLogMark = 0;
    // experiment -> (arm, engine identity) of every run so far
    std::map<std::string, std::vector<std::pair<std::string, nlohmann::json>>> identities;

    // The engine and its arm's runs are idle before and after a measured phase: scraped once
    // more each side, every observation of the phase falls inside it (see run()).
    void settleEngines() const { std::this_thread::sleep_for(settle); }
    void stopEngine(const ExperimentPlan& plan) {
        if (!engine)
            return;
        const int pid = engine->pid();
        ArmEngine::stop(engine, plan.arms[engineArm], say);
        store.addEvent(result.sessionId, clock.nowNs(), "engine-stop",
                       plan.arms[engineArm].label + ": pid " + std::to_string(pid));
    }
};

ExperimentRunner::Result ExperimentRunner::run(const std::atomic<bool>& cancel) {
    Say say = [this](const std::string& text) {
        if (m_callbacks.message)
            m_callbacks.message(text);
    };
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(m_options.dbPath).parent_path(), ec);
    Recorder::Options ro;
    ro.dbPath = m_options.dbPath;
    ro.label = m_plan.name;
    ro.storageProfile = "experiment";
    ro.interval = m_options.interval;
    ro.engines = engineEndpoints(m_plan);
    ro.engineInterval =
        std::max<std::chrono::nanoseconds>(m_options.interval, std::chrono::milliseconds(250));
    ro.observer = m_options.observer;
    Recorder recorder(ro);
    Store store(m_options.dbPath, Store::Mode::ReadWrite);
    recorder.start();
    Context c{
        RunSchedule::build(m_plan), recorder, store, recorder.clock(), say, {}, {}, {}, 0, 0, {}};
    // A run's engine figures are the increases scraped within its span. An idle engine scraped
    // once more before a measured phase starts and after it ends puts every observation of the
    // phase inside it, and none of the phase before (a populate phase's 1 s prefills made a
    // real engine's mean TTFT 640 ms against the client's 222 ms).
    if (!ro.engines.empty())
        c.settle = ro.engineInterval + std::chrono::milliseconds(250);
    c.result.sessionId = recorder.sessionId();
    if (m_callbacks.recording)
        m_callbacks.recording(c.result.sessionId, recorder.devices());
    c.result.runs = c.schedule.size();
    if (!m_options.planText.empty())
        store.addEvent(c.result.sessionId, c.clock.nowNs(), "experiment-plan",
                       Redaction::text(m_options.planText)); // the workspace travels (pull)
    reportLeftovers(store, c.result.sessionId, c.clock.nowNs(), say);
    for (std::size_t i = 0; i < c.schedule.size() && !c.result.incomplete; ++i) {
        if (!runStep(c, i, cancel))
            break;
        if (i + 1 == c.schedule.size() && !cancel)
            nextBlock(c);
    }
    c.stopEngine(m_plan);
    store.addEvent(c.result.sessionId, c.clock.nowNs(),
                   c.result.incomplete ? "experiment-incomplete" : "experiment-end", m_plan.name);
    recorder.stop();
    return c.result;
}

// repetitions = "auto": every gate judged on the runs so far, at the design's per-look level
// (SequentialDesign, the level the final comparison uses too); another block unless each is
// decided, the comparison is INVALID (more runs would not mend it) or the budget is spent.
void ExperimentRunner::nextBlock(Context& c) {
    if (!m_plan.maxRepetitions || c.result.incomplete)
        return;
    int done = 0;
    for (const auto& s : c.schedule)
        done = std::max(done, s.repetition);
    std::vector<ComparisonResult> comparisons;
    try {
        comparisons = compare(c.store, m_plan, false, c.result.sessionId);
    } catch (const std::exception& e) {
        c.result.stopped = "stopped after " + std::to_string(done) +
                           " repetitions: the runs cannot be compared (" + e.what() + ")";
        c.say(c.result.stopped);
        return;
    }
    if (m_callbacks.looked)
        m_callbacks.looked(done, comparisons);
    const auto look = SequentialLook::of(comparisons);
    auto event = nlohmann::json::parse(look.toJsonText());
    event["repetitions"] = done;
    c.store.addEvent(c.result.sessionId, c.clock.nowNs(), "sequential-look", event.dump());
    const std::string after = " after " + std::to_string(done) + " repetitions";
    if (look.invalid)
        c.result.stopped = "stopped" + after +
                           ": the comparison is INVALID, which more runs "
                           "would not mend";
    else if (look.decided)
        c.result.stopped = "every gate decided" + after;
    else if (done >= *m_plan.maxRepetitions)
        c.result.stopped = "undecided" + after + " (max_repetitions): " + look.needText();
    if (!c.result.stopped.empty()) {
        c.say(c.result.stopped);
        c.store.addEvent(c.result.sessionId, c.clock.nowNs(), "sequential-stop", c.result.stopped);
        return;
    }
    c.say("undecided" + after + ": " + look.needText() + "; running " +
          std::to_string(std::min(SequentialDesign::kBlock, *m_plan.maxRepetitions - done)) +
          " more");
    const auto more = RunSchedule::block(
        m_plan, done + 1, std::min(SequentialDesign::kBlock, *m_plan.maxRepetitions - done));
    c.schedule.insert(c.schedule.end(), more.begin(), more.end());
    c.result.runs = c.schedule.size();
}

// One scheduled run: the arm's setup, its engine, the workload and its teardown. False when
// the experiment stops here (cancelled).
bool ExperimentRunner::runStep(Context& c, std::size_t i, const std::atomic<bool>& cancel) {
    const ScheduledRun s = c.schedule[i]; // a copy: a sweep's next round grows the schedule
    const auto& arm = m_plan.arms[s.arm];
    const auto& w = m_plan.workloads[s.variant.workload];
    Step step{i,        c.schedule.size(), arm.label, experimentName(m_plan, s.variant),
              s.warmup, s.repetition};
    if (w.sweep)
        step.point = LoadSweep::label(
            w.sweep->rate ? LoadSweep::Mode::Rate : LoadSweep::Mode::Concurrency, s.sweepPoint);
    if (m_callbacks.started)
        m_callbacks.started(step);
    std::error_code ec;
    auto env = arm.env;
    env["TIERSCOPE_ARM"] = arm.label;
    env["TIERSCOPE_PATH"] = arm.path;
    env["TIERSCOPE"] = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    env[LeftoverProcesses::kVariable] = LeftoverProcesses::ownerValue();
    const std::int64_t start = c.clock.nowNs();
    const Fail fail = [&](const std::string& status, const nlohmann::json& why) {
        const auto run = c.store.createRun(c.result.sessionId, "storage/" + w.kind, "{}", start,
                                           step.experiment, arm.label, s.repetition);
        c.store.finishRun(run, c.clock.nowNs(), status, why.dump());
        if (m_callbacks.finished)
            m_callbacks.finished(step, {status, why.value("error", ""), run});
        ++c.result.failed;
        c.result.incomplete = c.result.incomplete || m_plan.stopOnFailure || status == "cancelled";
    };
    // Another arm's engine, or one that died since the last run, must not stay.
    if (c.engine && (c.engineArm != s.arm || !c.engine->running()))
        c.stopEngine(m_plan);
    if (cancel) {
        fail("cancelled", {{"error", "cancelled before it started"}});
        return false;
    }
    auto teardown = [&] {
        const bool last = i + 1 == c.schedule.size() || c.result.incomplete;
        if (c.engine && (arm.engineRestart == ExperimentPlan::Arm::EngineRestart::Run || last ||
                         c.schedule[i + 1].arm != s.arm))
            c.stopEngine(m_plan);
        if (arm.teardown.empty())
            return;
        // Not cancelled by Ctrl-C: it undoes what the setup did. A second Ctrl-C ends
        // tierscope, and the command's guard then kills its group.
        const auto done = ShellCommand::run(arm.expand(arm.teardown), env, arm.timeout);
        if (!done.ok())
            c.say(arm.label + " teardown " + done.describe() + ": " + done.output);
    };
    if (!arm.setup.empty()) {
        const auto setup = ShellCommand::run(arm.expand(arm.setup), env, arm.timeout, &cancel);
        if (setup.cancelled) {
            // What the setup did before it was stopped may need undoing.
            fail("cancelled", {{"error", "setup cancelled"}, {"output", setup.output}});
            teardown();
            return false;
        }
        if (!setup.ok()) {
            fail("failed", {{"error", "setup " + setup.describe()}, {"output", setup.output}});
            return true;
        }
    }
    if (!arm.engineStart.empty() && !c.engine) {
        if (auto why = ArmEngine::start(c.engine, arm, env, cancel, c.say)) {
            fail(cancel ? "cancelled" : "failed", *why);
            teardown();
            return true;
        }
        c.engineArm = s.arm;
        c.engineLogMark = 0;
        c.store.addEvent(c.result.sessionId, c.clock.nowNs(), "engine-start",
                         arm.label + ": pid " + std::to_string(c.engine->pid()) + ", " +
                             c.engine->command());
    }
    try {
        measure(c, step, s, env, cancel, fail);
    } catch (const std::exception& e) {
        fail(cancel ? "cancelled" : "failed", {{"error", e.what()}});
    }
    // A sweep's next bisection round, before the teardown decides whether the engine stays.
    if (!cancel && !c.result.incomplete) {
        auto more =
            SweepRounds::next(m_plan, c.schedule, i, step.experiment, c.store, c.result.sessionId);
        c.schedule.insert(c.schedule.begin() + static_cast<std::ptrdiff_t>(i) + 1, more.begin(),
                          more.end());
        c.result.runs = c.schedule.size();
    }
    teardown();
    return true;
}

// The step's workload on its arm, between the arm's cache resets, stored as its run.
void ExperimentRunner::measure(Context& c, const Step& step, const ScheduledRun& s,
                               const std::map<std::string, std::string>& env,
                               const std::atomic<bool>& cancel, const Fail& fail) {
    const auto& arm = m_plan.arms[s.arm];
    const auto& w = m_plan.workloads[s.variant.workload];
    ArmWorkload::prepareData(w, arm, cancel, c.say);
    // Asked before the workload: the process that is about to answer it.
    std::optional<nlohmann::json> identity;
    if (!arm.engineUrl.empty() && (w.kind == "load" || c.engine))
        identity = EngineIdentity::probe(arm.engineUrl);
    auto resets = [&] {
        CacheReset::Steps steps;
        steps.resetPrefixCache = arm.resetPrefixCache;
        steps.engineUrl = arm.engineUrl;
        steps.command = arm.expand(arm.reset);
        steps.env = env;
        steps.timeout = arm.timeout;
        steps.dropCaches = arm.dropCaches;
        steps.dropCachesPath = m_options.dropCachesPath;
        auto done = CacheReset::run(steps);
        for (const auto& o : done)
            if (!o.ok)
                c.say(arm.label + " reset: " + o.describe());
        c.settleEngines(); // a measured phase follows
        return done;
    };
    // Before the run; a cold-recovery run resets between its two phases instead.
    std::vector<CacheReset::Outcome> resetBefore;
    if (w.kind != "cold-recovery" && arm.hasReset()) {
        resetBefore = resets();
        if (const auto why = ArmWorkload::firstFailure(resetBefore); !why.empty()) {
            fail("failed", {{"error", why}, {"reset", ArmWorkload::toJson(resetBefore)}});
            return;
        }
    }
    const bool engineWork = w.kind == "load" || w.kind == "cold-recovery";
    if (engineWork)
        c.settleEngines();
    const std::int64_t runStart = c.clock.nowNs();
    // The engine runs in a process group of its own: its id is the group's.
    const ArmWorkload::LoadContext load{s.variant.concurrency,
                                        s.repetition,
                                        c.clock,
                                        cancel,
                                        m_plan.maxFailureRate,
                                        m_plan.minHitShare,
                                        c.engine ? c.engine->pid() : 0,
                                        s.sweepPoint,
                                        s.sweepRound > 0};
    ArmWorkload::Outcome out =
        w.kind == "load" ? ArmWorkload::loadRun(w, arm, load)
        : w.kind == "cold-recovery"
            ? ArmWorkload::coldRecoveryRun(w, arm, load, resets)
            : ArmWorkload::storageRun(w, arm, s.variant.concurrency, cancel, c.recorder);
    if (engineWork && !out.cancelled)
        c.settleEngines(); // the last requests' observations are scraped inside the run
    if (!resetBefore.empty())
        out.summary["reset"] = ArmWorkload::toJson(resetBefore);
    storeRun(c, step, s, out, runStart, identity);
}

// The run (and a cold-recovery run's populate phase) into the store, with the engine's log,
// its identity check and the workload's validity checks.
void ExperimentRunner::storeRun(Context& c, const Step& step, const ScheduledRun& s,
                                ArmWorkload::Outcome& out, std::int64_t runStart,
                                const std::optional<nlohmann::json>& identity) {
    const auto& arm = m_plan.arms[s.arm];
    // The design's looks and the noise floor travel with the runs: any later comparison of
    // them uses that level and shows that floor.
    if (m_plan.maxRepetitions)
        out.params[SequentialDesign::kParam] = SequentialDesign::looksFor(*m_plan.maxRepetitions);
    if (m_plan.noiseFloorSession)
        out.params[NoiseFloor::kParam] = *m_plan.noiseFloorSession;
    if (out.populate) {
        const auto populate =
            c.store.createRun(c.result.sessionId, out.workload, out.params.dump(),
                              out.populate->startNs, step.experiment, arm.label, s.repetition);
        c.store.addRequests(populate, out.populate->requests);
        c.store.finishRun(populate, out.populate->endNs, "populate", out.populate->summary.dump());
    }
    const std::int64_t measuredStart = out.measuredStartNs.value_or(runStart);
    const auto run = c.store.createRun(c.result.sessionId, out.workload, out.params.dump(),
                                       measuredStart, step.experiment, arm.label, s.repetition);
    if (!out.requests.empty())
        c.store.addRequests(run, out.requests);
    std::string status = out.cancelled ? "cancelled" : s.warmup ? "warmup" : "completed";
    std::string detail =
        UnitFormat::kpi(static_cast<double>(c.clock.nowNs() - runStart) / 1e9, "s");
    if (!out.error.empty()) {
        status = "failed";
        detail = out.error;
        out.summary["error"] = out.error;
    } else if (out.populate) {
        detail += ArmWorkload::phaseTtfts(*out.populate, out.summary);
    }
    // The endpoints of this arm's engine: a run is judged on its own engine's series, not on
    // the other arm's, which the session records too.
    nlohmann::json endpoints = nlohmann::json::array();
    for (const auto& url : arm.metricsEndpoints())
        endpoints.push_back(EngineMetricsMapper::endpointIdFromUrl(url));
    if (!endpoints.empty())
        out.summary["engine_endpoints"] = endpoints;
    // The block devices under the arm's directory, for the run's bytes route.
    if (!arm.path.empty())
        out.summary["kv_tier"] = PathDevice::resolve(arm.path).toJson();
    if (c.engine) {
        std::string log = c.engine->logSince(c.engineLogMark);
        if (log.size() > ArmEngine::kLogKept)
            log = "[...]\n" + log.substr(log.size() - ArmEngine::kLogKept);
        c.engineLogMark = c.engine->logSize();
        out.summary["engine"] = {
            {"pid", c.engine->pid()}, {"command", c.engine->command()}, {"log", log}};
        if (!c.engine->running()) {
            status = "failed";
            detail = "the engine exited (" + c.engine->describeExit() + ") during the run";
            out.summary["error"] = detail;
            c.say(arm.label + " " + detail + "; its output ends:\n" +
                  c.engine->logTail(ArmEngine::kLogKept));
        }
    }
    nlohmann::json validity = nlohmann::json::array();
    if (identity) {
        auto& seen = c.identities[step.experiment];
        validity.push_back(ArmEngine::identityCheck(*identity, arm.label, seen));
        seen.emplace_back(arm.label, *identity);
        out.summary["engine_identity"] = *identity;
    }
    for (const auto& check : out.validity)
        validity.push_back(check);
    if (!validity.empty())
        out.summary["validity"] = validity;
    // A warm-up is never compared, so a failed check there makes nothing INVALID.
    for (const auto& check : validity)
        if (check["status"] == "fail")
            c.say((s.warmup ? "warm-up check failed (not compared): " : "INVALID: ") +
                  step.experiment + ", " + arm.label + (s.warmup ? " warm-up " : " repetition ") +
                  std::to_string(s.repetition) + ": " + check.value("detail", "") + " (" +
                  check.value("check", "") + ")");
    c.store.finishRun(run, c.clock.nowNs(), status, out.summary.dump());
    if (m_callbacks.finished)
        m_callbacks.finished(step, {status, detail, run});
    c.result.failed += status == "failed";
    c.result.incomplete =
        c.result.incomplete || out.cancelled || (status == "failed" && m_plan.stopOnFailure);
}

std::vector<Gate> ExperimentRunner::gates(const ExperimentPlan& plan) {
    std::vector<Gate> out;
    for (const auto& text : plan.gates) {
        std::string unused; // ExperimentPlan::parse has checked every gate
        out.push_back(*Gate::parse(text, unused));
    }
    return out;
}

std::vector<ComparisonResult> ExperimentRunner::compare(Store& store, const ExperimentPlan& plan,
                                                        bool charts, std::int64_t session) {
    ComparisonBuilder::Options options;
    options.dropUnmeasuredGates = true;
    options.gates = gates(plan);
    std::vector<ComparisonResult> out;
    for (const auto& variant : plan.variants()) {
        const std::string experiment = experimentName(plan, variant);
        auto side = [&](const ExperimentPlan::Arm& arm) {
            return ComparisonBuilder::arm(
                store, experiment, arm.label,
                arm.label + (arm.storageProfile.empty() ? "" : " [" + arm.storageProfile + "]") +
                    ", " + experiment,
                session);
        };
        const auto a = side(plan.arms[0]);
        for (std::size_t b = 1; b < plan.arms.size(); ++b) {
            const auto sideB = side(plan.arms[b]);
            auto in = ComparisonBuilder::build(store, a, sideB, options);
            if (charts)
                ComparisonCharts::attach(in, a, sideB);
            in.toolVersion = kToolVersion;
            out.push_back(std::move(in));
        }
    }
    return out;
}

} // namespace tierscope
