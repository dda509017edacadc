#include "experiments/ExperimentRunner.h"

#include "collectors/Recorder.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/ValidityChecks.h"
#include "core/model/Reading.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/stats/LoadSummary.h"
#include "core/store/Store.h"
#include "core/util/Redaction.h"
#include "core/util/ShellTemplate.h"
#include "core/util/SizeParser.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "experiments/CacheReset.h"
#include "experiments/ColdRecoveryEvidence.h"
#include "experiments/EngineIdentity.h"
#include "experiments/EngineProcess.h"
#include "experiments/EvidenceSnapshot.h"
#include "experiments/HttpProbe.h"
#include "experiments/LeftoverProcesses.h"
#include "experiments/PortHolder.h"
#include "experiments/RunSchedule.h"
#include "experiments/ShellCommand.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"
#include "workloads/BandwidthSampler.h"
#include "workloads/IoRunner.h"
#include "workloads/KvGeometry.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/StorageRunPlan.h"
#include "workloads/WorkloadError.h"

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

namespace tierscope {

namespace {

using Params = std::map<std::string, std::string>;

std::string param(const Params& p, const std::string& key, const std::string& fallback) {
    const auto it = p.find(key);
    return it == p.end() ? fallback : it->second;
}

int intParam(const Params& p, const std::string& key, int fallback) {
    const auto it = p.find(key);
    return it == p.end() ? fallback : std::stoi(it->second);
}

std::uint64_t sizeParam(const Params& p, const std::string& key, const std::string& fallback) {
    const std::string text = param(p, key, fallback);
    const auto size = SizeParser::parse(text);
    if (!size || *size == 0)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            key + " = \"" + text + "\" is not a size");
    return *size;
}

// {path}, quoted for /bin/sh: a path with a space stays one word (the plan's parser refused
// a {path} inside quotes already, naming $TIERSCOPE_PATH).
std::string substitute(const std::string& text, const ExperimentPlan::Arm& arm) {
    return ShellTemplate::expand(text, "{path}", arm.path, "TIERSCOPE_PATH");
}

// The data a read workload needs, written once per arm outside any measurement.
void prepareData(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                 const std::atomic<bool>& cancel,
                 const std::function<void(const std::string&)>& say) {
    if (w.kind != "model-load" && w.kind != "kv-restore")
        return;
    // What the plan asks for, checked before anything is read or written: an unknown geometry
    // is an error, not a reason to reuse whatever the directory holds.
    std::uint64_t size = 0;
    int files = 0;
    StorageDataset::KvLayout layout;
    nlohmann::json wanted;
    if (w.kind == "model-load") {
        size = sizeParam(w.params, "size", "1GiB");
        files = intParam(w.params, "files", 4);
        wanted = StorageDataset::modelLoadDataset(size, files);
    } else {
        const std::string name = param(w.params, "geometry", "Llama-3.1-8B");
        const auto g = KvGeometry::findPreset(name);
        if (!g)
            throw WorkloadError(WorkloadError::Kind::NotFound, "no geometry preset " + name);
        layout.geometry = *g;
        layout.tokens = intParam(w.params, "tokens", 2048);
        layout.prefixes = intParam(w.params, "prefixes", 8);
        layout.chunkTokens = intParam(w.params, "chunk_tokens", 256);
        wanted = layout.toJson();
    }
    std::filesystem::create_directories(arm.path);
    auto manifest = StorageManifest::load(arm.path);
    // Reused only when it is this plan's data set and was completely written; another size,
    // another geometry or an interrupted preparation is prepared again.
    if (StorageDataset::ready(manifest, w.kind, wanted))
        return;
    IoJob job = w.kind == "model-load" ? StorageDataset::prepareModelLoad(manifest, size, files)
                                       : StorageDataset::prepareKvRestore(manifest, layout);
    say("preparing " + w.kind + " data in " + arm.path);
    if (!IoRunner(job).run(&cancel).cancelled)
        StorageDataset::markComplete(manifest, w.kind);
}

// The workload's own bandwidth goes on the timeline every 100 ms, beside the block collector,
// which cannot see tmpfs or network filesystems.
IoRunner::Result sampled(IoJob job, const std::atomic<bool>& cancel, Recorder& recorder) {
    IoRunner runner(std::move(job));
    // No per-arm labels: a series is one per session, and the runs say which arm was when.
    const std::string labels = "{}";
    BandwidthSampler sampler(
        runner, std::chrono::milliseconds(100), [&](const BandwidthSampler::Rates& r) {
            const Reading readings[] = {
                {{"workload/read_bytes_per_s", "bytes/s", "rate", labels}, r.readBytesPerS},
                {{"workload/write_bytes_per_s", "bytes/s", "rate", labels}, r.writeBytesPerS}};
            recorder.sink().write(recorder.clock().toWallNs(r.at), readings);
        });
    auto result = runner.run(&cancel);
    sampler.stop();
    return result;
}

// A cold-recovery run's populate phase: stored as a run of its own, status "populate", which
// no comparison counts as a measurement.
struct Phase {
    std::vector<RequestRecord> requests;
    nlohmann::json summary;
    std::int64_t startNs = 0, endNs = 0;
};

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

nlohmann::json toJson(const std::vector<CacheReset::Outcome>& outcomes) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& o : outcomes)
        out.push_back(o.toJson());
    return out;
}

std::string firstFailure(const std::vector<CacheReset::Outcome>& outcomes) {
    for (const auto& o : outcomes)
        if (!o.ok)
            return "cache reset: " + o.describe();
    return {};
}

nlohmann::json errorsCheck(const std::vector<RequestRecord>& requests,
                           std::optional<double> limit) {
    long failed = 0;
    for (const auto& r : requests)
        failed += !r.ok();
    return ValidityChecks::errors(failed, static_cast<long>(requests.size()), limit);
}

Outcome storageRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                   int concurrency, const std::atomic<bool>& cancel, Recorder& recorder) {
    const auto block = static_cast<std::uint32_t>(sizeParam(w.params, "block_size", "1MiB"));
    const int depth = intParam(w.params, "queue_depth", 4);
    Outcome o;
    o.workload = "storage/" + w.kind;
    auto manifest = StorageManifest::load(arm.path, w.kind == "checkpoint-save"
                                                        ? StorageManifest::Access::Write
                                                        : StorageManifest::Access::Read);
    StorageRunPlan::Spec spec;
    spec.kind = w.kind;
    spec.path = arm.path;
    spec.depth = depth;
    spec.blockSize = block;
    spec.files = intParam(w.params, "files", 4);
    spec.size = sizeParam(w.params, "size", "1GiB");
    spec.parallel = concurrency > 0          ? concurrency
                    : w.kind == "model-load" ? intParam(w.params, "parallel", 4)
                                             : spec.files;
    spec.concurrency = concurrency > 0 ? concurrency : 16;
    spec.requests = intParam(w.params, "requests", 0);
    spec.tokens = intParam(w.params, "tokens", 0);
    const StorageRunPlan plan = StorageRunPlan::make(spec, manifest);
    const IoRunner::Result result = sampled(plan.job, cancel, recorder);
    o.params = plan.params;
    o.summary = plan.summarize(result, nullptr);
    if (w.kind == "checkpoint-save") // a checkpoint is written to be measured, not kept
        StorageDataset::remove(manifest, "checkpoint-save");
    o.cancelled = result.cancelled;
    return o;
}

Outcome loadRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm, int concurrency,
                int repetition, const WallClock& clock, const std::atomic<bool>& cancel,
                std::optional<double> maxFailureRate) {
    if (arm.engineUrl.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "arm \"" + arm.label + "\" has no engine_url for a load workload");
    LoadGenerator::Options options;
    options.url = arm.engineUrl;
    options.model = param(w.params, "model", "tierscope-sim");
    options.concurrency = concurrency > 0 ? concurrency : 8;
    options.requests = intParam(w.params, "requests", 100);
    options.warmup = intParam(w.params, "warmup_requests", 0);
    const int input = intParam(w.params, "input_len", 512);
    const int output = intParam(w.params, "output_len", 64);
    // Each repetition its own prompts, the same for every arm: a later run is not served from
    // the prefix cache an earlier one filled, and the arms of a repetition stay paired.
    const auto seed = static_cast<std::uint64_t>(intParam(w.params, "seed", 1)) +
                      static_cast<std::uint64_t>(repetition);
    // shared-prefix: LMCache's multi-round pattern, so the engine restores cached KV
    const auto conversations =
        param(w.params, "dataset", "synthetic") == "shared-prefix"
            ? Datasets::sharedPrefix(intParam(w.params, "users", 8),
                                     intParam(w.params, "system_tokens", 1000),
                                     intParam(w.params, "rounds", 4),
                                     intParam(w.params, "question_tokens", 64), output, seed)
            : Datasets::synthetic(options.requests + options.warmup, input, input, output, seed);
    LoadGenerator generator(options, conversations, clock);
    Outcome o;
    o.workload = "load";
    o.requests = generator.run({}, &cancel);
    o.cancelled = cancel;
    o.summary =
        LoadSummary::compute(o.requests, generator.durationS(), generator.maxConcurrent(), {});
    o.params = {{"url", LoadGenerator::redacted(arm.engineUrl)},
                {"seed", seed},
                {"model", options.model},
                {"concurrency", options.concurrency},
                {"requests", options.requests},
                {"input_len", input},
                {"output_len", output}};
    if (!o.cancelled)
        o.validity.push_back(errorsCheck(o.requests, maxFailureRate));
    return o;
}

// KV bytes per token from the workload's kv_bytes_per_token or geometry preset; absent when it
// names neither.
std::optional<double> kvBytesPerToken(const Params& p) {
    if (p.count("kv_bytes_per_token"))
        return static_cast<double>(sizeParam(p, "kv_bytes_per_token", "1"));
    if (!p.count("geometry"))
        return std::nullopt;
    const auto g = KvGeometry::findPreset(p.at("geometry"));
    if (!g)
        throw WorkloadError(WorkloadError::Kind::NotFound,
                            "no geometry preset " + p.at("geometry"));
    return static_cast<double>(g->bytesPerToken());
}

// Long documents sent once (populate), the arm's reset steps, then questions over the same
// documents (measured), so their KV must come back from the KV store.
Outcome coldRecoveryRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                        int concurrency, int repetition, const WallClock& clock,
                        const std::atomic<bool>& cancel, const Resets& reset,
                        std::optional<double> maxFailureRate) {
    if (arm.engineUrl.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "arm \"" + arm.label +
                                "\" has no engine_url for a cold-recovery workload");
    const int documents = intParam(w.params, "documents", 16);
    const int documentTokens = intParam(w.params, "document_tokens", 8000);
    const int questions = intParam(w.params, "questions", 4);
    const int questionTokens = intParam(w.params, "question_tokens", 32);
    const int output = intParam(w.params, "output_len", 16);
    const auto bytesPerToken = kvBytesPerToken(w.params);
    // Each repetition its own documents, the same for every arm (see loadRun).
    const auto seed = static_cast<std::uint64_t>(intParam(w.params, "seed", 1)) +
                      static_cast<std::uint64_t>(repetition);
    const auto data =
        Datasets::coldRecovery(documents, documentTokens, questions, questionTokens, output, seed);
    LoadGenerator::Options options;
    options.url = arm.engineUrl;
    options.model = param(w.params, "model", "tierscope-sim");
    options.api = param(w.params, "api", "completions");
    const double rate = w.params.count("rate") ? std::stod(w.params.at("rate")) : 0;
    options.rate = rate;
    options.concurrency = concurrency > 0 ? concurrency : rate > 0 ? 0 : 8;
    Outcome o;
    o.workload = "load";
    o.params = {{"url", LoadGenerator::redacted(arm.engineUrl)},
                {"dataset", "cold-recovery"},
                {"seed", seed},
                {"model", options.model},
                {"concurrency", options.concurrency},
                {"rate", rate},
                {"documents", documents},
                {"document_tokens", documentTokens},
                {"questions", questions},
                {"question_tokens", questionTokens},
                {"output_len", output}};
    if (bytesPerToken)
        o.params["kv_bytes_per_token"] = *bytesPerToken;

    const auto atStart = EvidenceSnapshot::take(arm.path, {});
    Phase populate;
    populate.startNs = clock.nowNs();
    {
        auto p = options;
        p.requests = documents;
        LoadGenerator generator(p, data.populate, clock);
        populate.requests = generator.run({}, &cancel);
        populate.summary = LoadSummary::compute(populate.requests, generator.durationS(),
                                                generator.maxConcurrent(), {});
    }
    populate.endNs = clock.nowNs();
    o.populate = std::move(populate);
    if (cancel) {
        o.cancelled = true;
        return o;
    }
    const auto resets = reset();
    o.summary["reset"] = toJson(resets);
    if (!(o.error = firstFailure(resets)).empty())
        return o;
    const auto before = EvidenceSnapshot::take(arm.path, arm.engineUrl);
    o.measuredStartNs = clock.nowNs();
    auto m = options;
    m.requests = static_cast<int>(data.measured.size());
    LoadGenerator generator(m, data.measured, clock);
    o.requests = generator.run({}, &cancel);
    o.cancelled = cancel;
    const auto after = EvidenceSnapshot::take(arm.path, arm.engineUrl);
    auto summary =
        LoadSummary::compute(o.requests, generator.durationS(), generator.maxConcurrent(), {});
    summary["reset"] = o.summary["reset"];
    summary["populate"] = o.populate->summary;
    o.summary = std::move(summary);

    // Distinct prefixes: each document's KV has to come back at least once.
    const std::optional<double> implied =
        bytesPerToken ? std::optional<double>(*bytesPerToken * documents * documentTokens)
                      : std::nullopt;
    const ColdRecoveryEvidence evidence(atStart, before, after, implied);
    o.summary["evidence"] = evidence.toJson();
    if (o.cancelled)
        return o;
    o.validity.push_back(evidence.storageCheck());
    o.validity.push_back(evidence.cacheCheck());
    if (evidence.hasDevice())
        o.validity.push_back(evidence.pageCacheCheck());
    o.validity.push_back(errorsCheck(o.requests, maxFailureRate));
    return o;
}

using Say = std::function<void(const std::string&)>;

// ", populate TTFT p50 1.20 s, measured 0.45 s": both phases of a cold-recovery run.
std::string phaseTtfts(const Phase& populate, const nlohmann::json& measured) {
    auto p50 = [](const nlohmann::json& s) -> std::string {
        const auto it = s.find("median_ttft_ms");
        return it != s.end() && it->is_number() ? UnitFormat::kpi(it->get<double>() / 1000, "s")
                                                : "n/a";
    };
    return ", TTFT p50: populate " + p50(populate.summary) + ", measured " + p50(measured);
}

constexpr std::size_t kEngineLogKept = 16 * 1024; // of the engine's output, in a run's summary

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

// Stops the engine's whole process group and waits until its port is free, so the next arm
// cannot be answered by it. `log`: the end of its output, read once the group is gone.
void stopEngine(std::unique_ptr<EngineProcess>& engine, const ExperimentPlan::Arm& owner,
                const Say& say, std::string* log = nullptr) {
    if (!engine)
        return;
    if (!engine->stop(owner.engineStopGrace))
        say(owner.label + " engine: processes of group " + std::to_string(engine->pid()) +
            " outlived SIGKILL");
    if (log)
        *log = engine->logTail(kEngineLogKept);
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
std::optional<nlohmann::json> startEngine(std::unique_ptr<EngineProcess>& engine,
                                          const ExperimentPlan::Arm& arm,
                                          const std::map<std::string, std::string>& env,
                                          const std::atomic<bool>& cancel, const Say& say) {
    // A process already on the port would answer for this arm while its engine fails to bind.
    if (const auto port = enginePort(arm); port && PortHolder::listening(*port))
        return nlohmann::json{{"error", "engine not started: " + PortHolder::describe(*port)}};
    const std::string url = readyUrl(arm);
    engine = std::make_unique<EngineProcess>(substitute(arm.engineStart, arm), env);
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
        stopEngine(engine, arm, say, &log);
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
nlohmann::json identityCheck(const nlohmann::json& identity, const std::string& arm,
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
            out.push_back(arm.label + " setup: " + substitute(arm.setup, arm));
        if (!arm.engineStart.empty())
            out.push_back(arm.label + " engine: " + substitute(arm.engineStart, arm));
        if (arm.resetPrefixCache)
            out.push_back(arm.label + " reset: POST " + EngineIdentity::baseUrl(arm.engineUrl) +
                          "/reset_prefix_cache");
        if (!arm.reset.empty())
            out.push_back(arm.label + " reset: " + substitute(arm.reset, arm));
        if (arm.dropCaches)
            out.push_back(arm.label + " reset: sync; echo 3 > /proc/sys/vm/drop_caches");
        if (!arm.teardown.empty())
            out.push_back(arm.label + " teardown: " + substitute(arm.teardown, arm));
    }
    return out;
}

// Each arm's engine /metrics, once per endpoint, scraped for the whole session. Arms that share
// an engine URL share its series, but their runs never overlap in time, so each run's span
// holds the observations of the engine that served it; an engine that is down between its
// arm's runs shows as failed scrapes, not as zeros.
std::vector<EngineMetricsCollector::Options> engineEndpoints(const ExperimentPlan& plan) {
    std::vector<EngineMetricsCollector::Options> out;
    std::set<std::string> seen;
    for (const auto& arm : plan.arms) {
        if (arm.engineUrl.empty())
            continue;
        EngineMetricsCollector::Options e;
        e.url = EngineIdentity::baseUrl(arm.engineUrl) + "/metrics";
        if (seen.insert(e.url).second)
            out.push_back(std::move(e));
    }
    return out;
}

ExperimentRunner::Result ExperimentRunner::run(const std::atomic<bool>& cancel) {
    auto say = [this](const std::string& text) {
        if (m_callbacks.message)
            m_callbacks.message(text);
    };
    const auto schedule = RunSchedule::build(m_plan);
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
    // A run's engine figures are the increases scraped within its span. An idle engine scraped
    // once more before a measured phase starts and after it ends puts every observation of the
    // phase inside it, and none of the phase before (a populate phase's 1 s prefills made a
    // real engine's mean TTFT 640 ms against the client's 222 ms).
    const auto settle = ro.engines.empty() ? std::chrono::nanoseconds(0)
                                           : ro.engineInterval + std::chrono::milliseconds(250);
    auto settleEngines = [&] { std::this_thread::sleep_for(settle); };
    ro.observer = m_options.observer;
    Recorder recorder(ro);
    Store store(m_options.dbPath, Store::Mode::ReadWrite);
    recorder.start();
    const WallClock& clock = recorder.clock();
    Result result;
    result.sessionId = recorder.sessionId();
    if (m_callbacks.recording)
        m_callbacks.recording(result.sessionId, recorder.devices());
    result.runs = schedule.size();
    if (!m_options.planText.empty())
        store.addEvent(result.sessionId, clock.nowNs(), "experiment-plan",
                       Redaction::text(m_options.planText)); // the workspace travels (pull)
    reportLeftovers(store, result.sessionId, clock.nowNs(), say);
    // The running engine and the arm it belongs to.
    std::unique_ptr<EngineProcess> engine;
    std::size_t engineArm = 0;
    std::uint64_t engineLogMark = 0;
    auto stopArmEngine = [&] {
        if (!engine)
            return;
        const int pid = engine->pid();
        stopEngine(engine, m_plan.arms[engineArm], say);
        store.addEvent(result.sessionId, clock.nowNs(), "engine-stop",
                       m_plan.arms[engineArm].label + ": pid " + std::to_string(pid));
    };
    // experiment -> (arm, engine identity) of every run so far
    std::map<std::string, std::vector<std::pair<std::string, nlohmann::json>>> identities;
    for (std::size_t i = 0; i < schedule.size() && !result.incomplete; ++i) {
        const auto& s = schedule[i];
        const auto& arm = m_plan.arms[s.arm];
        const auto& w = m_plan.workloads[s.variant.workload];
        const Step step{i,        schedule.size(), arm.label, experimentName(m_plan, s.variant),
                        s.warmup, s.repetition};
        if (m_callbacks.started)
            m_callbacks.started(step);
        auto report = [&](const StepResult& r) {
            if (m_callbacks.finished)
                m_callbacks.finished(step, r);
        };
        auto env = arm.env;
        env["TIERSCOPE_ARM"] = arm.label;
        env["TIERSCOPE_PATH"] = arm.path;
        env["TIERSCOPE"] = std::filesystem::read_symlink("/proc/self/exe", ec).string();
        env[LeftoverProcesses::kVariable] = LeftoverProcesses::ownerValue();
        const std::int64_t start = clock.nowNs();
        auto fail = [&](const std::string& status, const nlohmann::json& why) {
            const auto run = store.createRun(result.sessionId, "storage/" + w.kind, "{}", start,
                                             step.experiment, arm.label, s.repetition);
            store.finishRun(run, clock.nowNs(), status, why.dump());
            report({status, why.value("error", ""), run});
            ++result.failed;
            result.incomplete = result.incomplete || m_plan.stopOnFailure || status == "cancelled";
        };
        // Another arm's engine, or one that died since the last run, must not stay.
        if (engine && (engineArm != s.arm || !engine->running()))
            stopArmEngine();
        if (cancel) {
            fail("cancelled", {{"error", "cancelled before it started"}});
            break;
        }
        auto teardown = [&] {
            const bool last = i + 1 == schedule.size() || result.incomplete;
            if (engine && (arm.engineRestart == ExperimentPlan::Arm::EngineRestart::Run || last ||
                           schedule[i + 1].arm != s.arm))
                stopArmEngine();
            if (arm.teardown.empty())
                return;
            // Not cancelled by Ctrl-C: it undoes what the setup did. A second Ctrl-C ends
            // tierscope, and the command's guard then kills its group.
            const auto done = ShellCommand::run(substitute(arm.teardown, arm), env, arm.timeout);
            if (!done.ok())
                say(arm.label + " teardown " + done.describe() + ": " + done.output);
        };
        if (!arm.setup.empty()) {
            const auto setup =
                ShellCommand::run(substitute(arm.setup, arm), env, arm.timeout, &cancel);
            if (setup.cancelled) {
                // What the setup did before it was stopped may need undoing.
                fail("cancelled", {{"error", "setup cancelled"}, {"output", setup.output}});
                teardown();
                break;
            }
            if (!setup.ok()) {
                fail("failed", {{"error", "setup " + setup.describe()}, {"output", setup.output}});
                continue;
            }
        }
        if (!arm.engineStart.empty() && !engine) {
            if (auto why = startEngine(engine, arm, env, cancel, say)) {
                fail(cancel ? "cancelled" : "failed", *why);
                teardown();
                continue;
            }
            engineArm = s.arm;
            engineLogMark = 0;
            store.addEvent(result.sessionId, clock.nowNs(), "engine-start",
                           arm.label + ": pid " + std::to_string(engine->pid()) + ", " +
                               engine->command());
        }
        try {
            prepareData(w, arm, cancel, say);
            // Asked before the workload: the process that is about to answer it.
            std::optional<nlohmann::json> identity;
            if (!arm.engineUrl.empty() && (w.kind == "load" || engine))
                identity = EngineIdentity::probe(arm.engineUrl);
            auto resets = [&] {
                CacheReset::Steps steps;
                steps.resetPrefixCache = arm.resetPrefixCache;
                steps.engineUrl = arm.engineUrl;
                steps.command = substitute(arm.reset, arm);
                steps.env = env;
                steps.timeout = arm.timeout;
                steps.dropCaches = arm.dropCaches;
                steps.dropCachesPath = m_options.dropCachesPath;
                auto done = CacheReset::run(steps);
                for (const auto& o : done)
                    if (!o.ok)
                        say(arm.label + " reset: " + o.describe());
                settleEngines(); // a measured phase follows
                return done;
            };
            // Before the run; a cold-recovery run resets between its two phases instead.
            std::vector<CacheReset::Outcome> resetBefore;
            if (w.kind != "cold-recovery" && arm.hasReset()) {
                resetBefore = resets();
                if (const auto why = firstFailure(resetBefore); !why.empty()) {
                    fail("failed", {{"error", why}, {"reset", toJson(resetBefore)}});
                    teardown();
                    continue;
                }
            }
            const bool engineWork = w.kind == "load" || w.kind == "cold-recovery";
            if (engineWork)
                settleEngines();
            const std::int64_t runStart = clock.nowNs();
            Outcome out = w.kind == "load" ? loadRun(w, arm, s.variant.concurrency, s.repetition,
                                                     clock, cancel, m_plan.maxFailureRate)
                          : w.kind == "cold-recovery"
                              ? coldRecoveryRun(w, arm, s.variant.concurrency, s.repetition, clock,
                                                cancel, resets, m_plan.maxFailureRate)
                              : storageRun(w, arm, s.variant.concurrency, cancel, recorder);
            if (engineWork && !out.cancelled)
                settleEngines(); // the last requests' observations are scraped inside the run
            if (!resetBefore.empty())
                out.summary["reset"] = toJson(resetBefore);
            if (out.populate) {
                const auto populate = store.createRun(result.sessionId, out.workload,
                                                      out.params.dump(), out.populate->startNs,
                                                      step.experiment, arm.label, s.repetition);
                store.addRequests(populate, out.populate->requests);
                store.finishRun(populate, out.populate->endNs, "populate",
                                out.populate->summary.dump());
            }
            const std::int64_t measuredStart = out.measuredStartNs.value_or(runStart);
            const auto run =
                store.createRun(result.sessionId, out.workload, out.params.dump(), measuredStart,
                                step.experiment, arm.label, s.repetition);
            if (!out.requests.empty())
                store.addRequests(run, out.requests);
            std::string status = out.cancelled ? "cancelled" : s.warmup ? "warmup" : "completed";
            std::string detail =
                UnitFormat::kpi(static_cast<double>(clock.nowNs() - runStart) / 1e9, "s");
            if (!out.error.empty()) {
                status = "failed";
                detail = out.error;
                out.summary["error"] = out.error;
            } else if (out.populate) {
                detail += phaseTtfts(*out.populate, out.summary);
            }
            if (engine) {
                std::string log = engine->logSince(engineLogMark);
                if (log.size() > kEngineLogKept)
                    log = "[...]\n" + log.substr(log.size() - kEngineLogKept);
                engineLogMark = engine->logSize();
                out.summary["engine"] = {
                    {"pid", engine->pid()}, {"command", engine->command()}, {"log", log}};
                if (!engine->running()) {
                    status = "failed";
                    detail = "the engine exited (" + engine->describeExit() + ") during the run";
                    out.summary["error"] = detail;
                    say(arm.label + " " + detail + "; its output ends:\n" +
                        engine->logTail(kEngineLogKept));
                }
            }
            nlohmann::json validity = nlohmann::json::array();
            if (identity) {
                auto& seen = identities[step.experiment];
                validity.push_back(identityCheck(*identity, arm.label, seen));
                seen.emplace_back(arm.label, *identity);
                out.summary["engine_identity"] = *identity;
            }
            for (const auto& check : out.validity)
                validity.push_back(check);
            if (!validity.empty())
                out.summary["validity"] = validity;
            for (const auto& check : validity)
                if (check["status"] == "fail")
                    say("INVALID: " + step.experiment + ", " + arm.label + " repetition " +
                        std::to_string(s.repetition) + ": " + check.value("detail", "") + " (" +
                        check.value("check", "") + ")");
            store.finishRun(run, clock.nowNs(), status, out.summary.dump());
            report({status, detail, run});
            result.failed += status == "failed";
            result.incomplete =
                result.incomplete || out.cancelled || (status == "failed" && m_plan.stopOnFailure);
        } catch (const std::exception& e) {
            fail(cancel ? "cancelled" : "failed", {{"error", e.what()}});
        }
        teardown();
    }
    stopArmEngine();
    store.addEvent(result.sessionId, clock.nowNs(),
                   result.incomplete ? "experiment-incomplete" : "experiment-end", m_plan.name);
    recorder.stop();
    return result;
}

std::vector<ComparisonResult> ExperimentRunner::compare(Store& store, const ExperimentPlan& plan,
                                                        bool charts, std::int64_t session) {
    ComparisonBuilder::Options options;
    options.dropUnmeasuredGates = true;
    for (const auto& text : plan.gates) {
        std::string unused; // ExperimentPlan::parse has checked every gate
        options.gates.push_back(*Gate::parse(text, unused));
    }
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
