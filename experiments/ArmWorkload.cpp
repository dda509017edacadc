#include "experiments/ArmWorkload.h"

#include "collectors/Recorder.h"
#include "core/compare/ValidityChecks.h"
#include "core/model/Reading.h"
#include "core/stats/LoadSummary.h"
#include "core/util/SizeParser.h"
#include "core/util/UnitFormat.h"
#include "experiments/ColdRecoveryEvidence.h"
#include "experiments/EvidenceSnapshot.h"
#include "experiments/LoadSweep.h"
#include "experiments/MeasuredLoad.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"
#include "loadgen/TraceSchedule.h"
#include "workloads/BandwidthSampler.h"
#include "workloads/DatasetRequest.h"
#include "workloads/KvGeometry.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/StorageRunPlan.h"
#include "workloads/WorkloadError.h"

#include <filesystem>

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

nlohmann::json errorsCheck(const std::vector<RequestRecord>& requests,
                           std::optional<double> limit) {
    long failed = 0;
    for (const auto& r : requests)
        failed += !r.ok();
    return ValidityChecks::errors(failed, static_cast<long>(requests.size()), limit);
}

// KV bytes per token from the workload's kv_bytes_per_token or geometry preset; absent when it
// names neither.
std::optional<double> kvBytesPerToken(const Params& p) {
    std::optional<double> explicitBytes;
    if (p.count("kv_bytes_per_token"))
        explicitBytes = static_cast<double>(sizeParam(p, "kv_bytes_per_token", "1"));
    return MeasuredLoad::bytesPerToken(explicitBytes, param(p, "geometry", ""));
}

// The request fields a plan's workload adds: ignore_eos and extra_body, checked by the plan's
// parser already.
void requestFields(const Params& p, LoadGenerator::Options& options, nlohmann::json& params) {
    options.ignoreEos = param(p, "ignore_eos", "false") == "true";
    if (options.ignoreEos)
        params["ignore_eos"] = true;
    if (p.count("extra_body")) {
        options.extraBody = nlohmann::json::parse(p.at("extra_body"));
        params["extra_body"] = options.extraBody;
    }
}

// dataset = "trace": the plan's trace at its own times (the plan's parser checked the keys),
// with the repetition's seed for its prompt words, so each repetition is a cold replay and the
// arms of one get the same prompts.
std::unique_ptr<TraceSchedule> traceSchedule(const Params& p, std::uint64_t seed) {
    if (param(p, "dataset", "") != "trace")
        return nullptr;
    TraceSchedule::Options t;
    t.path = param(p, "trace", "");
    t.format = param(p, "trace_format", "");
    t.timeScale = std::stod(param(p, "time_scale", "1"));
    t.maxRequests = std::stoll(param(p, "max_requests", "0"));
    t.startAtS = std::stod(param(p, "start_at", "0"));
    t.seed = seed;
    return std::make_unique<TraceSchedule>(t);
}

// A plan's sweep sends its point as `sweep` does (LoadSweep::atPoint), with the repetition's
// arrivals, and stores the SLOs with every run, so `compare` judges the capacity on them.
void sweepPoint(const PlanSweep& sweep, const ArmWorkload::LoadContext& x, std::uint64_t seed,
                LoadGenerator::Options& options, nlohmann::json& params) {
    LoadSweep::atPoint(sweep.rate ? LoadSweep::Mode::Rate : LoadSweep::Mode::Concurrency,
                       x.sweepPoint, options, params);
    options.seed = seed;
    params["sweep_probe"] = x.bisection ? "bisection" : "grid";
    params["slo"] = nlohmann::json::array();
    for (const auto& slo : sweep.slos)
        params["slo"].push_back(slo.text);
}

} // namespace

// The data a read workload needs, written once per arm outside any measurement.
void ArmWorkload::prepareData(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                              const std::atomic<bool>& cancel, const Say& say) {
    if (w.kind != "model-load" && w.kind != "kv-restore")
        return;
    // What the plan asks for, checked before anything is read or written: an unknown geometry
    // is an error, not a reason to reuse whatever the directory holds.
    DatasetRequest dataset;
    dataset.workload = w.kind;
    if (w.kind == "model-load") {
        dataset.totalBytes = sizeParam(w.params, "size", "1GiB");
        dataset.files = intParam(w.params, "files", 4);
    } else {
        dataset.layout.geometry = KvGeometry::preset(param(w.params, "geometry", "Llama-3.1-8B"));
        dataset.layout.tokens = intParam(w.params, "tokens", 2048);
        dataset.layout.prefixes = intParam(w.params, "prefixes", 8);
        dataset.layout.chunkTokens = intParam(w.params, "chunk_tokens", 256);
    }
    std::filesystem::create_directories(arm.path);
    auto manifest = StorageManifest::load(arm.path);
    // Reused only when it is this plan's data set and was completely written; another size,
    // another geometry or an interrupted preparation is prepared again.
    if (dataset.readyIn(manifest))
        return;
    IoJob job = dataset.prepare(manifest);
    say("preparing " + w.kind + " data in " + arm.path);
    if (!IoRunner(job).run(&cancel).cancelled)
        StorageDataset::markComplete(manifest, w.kind);
}

nlohmann::json ArmWorkload::toJson(const std::vector<CacheReset::Outcome>& outcomes) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& o : outcomes)
        out.push_back(o.toJson());
    return out;
}

std::string ArmWorkload::firstFailure(const std::vector<CacheReset::Outcome>& outcomes) {
    for (const auto& o : outcomes)
        if (!o.ok)
            return "cache reset: " + o.describe();
    return {};
}

ArmWorkload::Outcome ArmWorkload::storageRun(const ExperimentPlan::Workload& w,
                                             const ExperimentPlan::Arm& arm, int concurrency,
                                             const std::atomic<bool>& cancel, Recorder& recorder) {
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

ArmWorkload::Outcome ArmWorkload::loadRun(const ExperimentPlan::Workload& w,
                                          const ExperimentPlan::Arm& arm, const LoadContext& x) {
    if (arm.engineUrl.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "arm \"" + arm.label + "\" has no engine_url for a load workload");
    LoadGenerator::Options options;
    options.url = arm.engineUrl;
    options.model = param(w.params, "model", "tierscope-sim");
    options.concurrency = x.concurrency > 0 ? x.concurrency : 8;
    options.requests = intParam(w.params, "requests", 100);
    options.warmup = intParam(w.params, "warmup_requests", 0);
    MeasuredLoad load;
    // shared-prefix: LMCache's multi-round pattern, so the engine restores cached KV
    load.dataset =
        param(w.params, "dataset", "synthetic") == "shared-prefix" ? "shared-prefix" : "synthetic";
    load.count = options.requests + options.warmup;
    load.inputMin = load.inputMax = intParam(w.params, "input_len", 512);
    load.outputLen = intParam(w.params, "output_len", 64);
    load.users = intParam(w.params, "users", 8);
    load.systemTokens = intParam(w.params, "system_tokens", 1000);
    load.rounds = intParam(w.params, "rounds", 4);
    load.questionTokens = intParam(w.params, "question_tokens", 64);
    // Each repetition its own prompts, the same for every arm: a later run is not served from
    // the prefix cache an earlier one filled, and the arms of a repetition stay paired.
    load.seed = static_cast<std::uint64_t>(intParam(w.params, "seed", 1)) +
                static_cast<std::uint64_t>(x.repetition);
    auto trace = traceSchedule(w.params, load.seed);
    if (trace)
        options.concurrency = options.requests = 0; // the trace is the schedule
    const auto conversations = trace ? std::vector<Conversation>{} : load.prompts().measured;
    Outcome o;
    o.workload = "load";
    o.params = {{"url", LoadGenerator::redacted(arm.engineUrl)},
                {"seed", load.seed},
                {"model", options.model},
                {"concurrency", options.concurrency},
                {"requests", options.requests},
                {"input_len", load.inputMin},
                {"output_len", load.outputLen}};
    requestFields(w.params, options, o.params);
    if (trace)
        for (const char* key :
             {"dataset", "trace", "trace_format", "time_scale", "max_requests", "start_at"})
            if (w.params.count(key))
                o.params[key] = w.params.at(key);
    if (w.sweep) // the point's rate or concurrency, named in the run's parameters
        sweepPoint(*w.sweep, x, load.seed, options, o.params);
    const auto before = EvidenceSnapshot::take({}, {}, {}, x.enginePgid);
    LoadGenerator generator(options, conversations, x.clock, trace.get());
    o.requests = generator.run({}, &x.cancel);
    o.cancelled = x.cancel;
    const auto after = EvidenceSnapshot::take({}, {}, {}, x.enginePgid);
    o.summary = LoadSummary::compute(o.requests, generator.durationS(), generator.maxConcurrent(),
                                     {}, trace != nullptr || options.rate > 0);
    if (trace)
        o.summary["trace"] = trace->report();
    EvidenceSnapshot::addEngineIo(before, after, o.summary);
    if (!o.cancelled)
        o.validity.push_back(errorsCheck(o.requests, x.maxFailureRate));
    return o;
}

// Long documents sent once (populate), the arm's reset steps, then questions over the same
// documents (measured), so their KV must come back from the KV store.
ArmWorkload::Outcome ArmWorkload::coldRecoveryRun(const ExperimentPlan::Workload& w,
                                                  const ExperimentPlan::Arm& arm,
                                                  const LoadContext& x, const Resets& reset) {
    if (arm.engineUrl.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "arm \"" + arm.label +
                                "\" has no engine_url for a cold-recovery workload");
    MeasuredLoad load;
    load.dataset = "cold-recovery";
    load.documents = intParam(w.params, "documents", 16);
    load.documentTokens = intParam(w.params, "document_tokens", 8000);
    load.questions = intParam(w.params, "questions", 4);
    load.questionTokens = intParam(w.params, "question_tokens", 32);
    load.outputLen = intParam(w.params, "output_len", 16);
    load.kvBytesPerToken = kvBytesPerToken(w.params);
    // Each repetition its own documents, the same for every arm (see loadRun).
    load.seed = static_cast<std::uint64_t>(intParam(w.params, "seed", 1)) +
                static_cast<std::uint64_t>(x.repetition);
    const auto data = load.prompts();
    LoadGenerator::Options options;
    options.url = arm.engineUrl;
    options.model = param(w.params, "model", "tierscope-sim");
    options.api = param(w.params, "api", "completions");
    const double rate = w.params.count("rate") ? std::stod(w.params.at("rate")) : 0;
    options.rate = rate;
    options.concurrency = x.concurrency > 0 ? x.concurrency : rate > 0 ? 0 : 8;
    Outcome o;
    o.workload = "load";
    o.params = {{"url", LoadGenerator::redacted(arm.engineUrl)},
                {"dataset", "cold-recovery"},
                {"seed", load.seed},
                {"model", options.model},
                {"concurrency", options.concurrency},
                {"rate", rate},
                {"output_len", load.outputLen}};
    o.params.update(load.coldParams());
    if (load.kvBytesPerToken)
        o.params["kv_bytes_per_token"] = *load.kvBytesPerToken;
    if (arm.cache == ExperimentPlan::Arm::Cache::Recompute)
        o.params["cache"] = "recompute";
    requestFields(w.params, options, o.params);

    const auto atStart = EvidenceSnapshot::take(arm.path, {});
    Phase populate;
    populate.startNs = x.clock.nowNs();
    {
        auto p = options;
        p.requests = load.documents;
        LoadGenerator generator(p, data.populate, x.clock);
        populate.requests = generator.run({}, &x.cancel);
        populate.summary = LoadSummary::compute(populate.requests, generator.durationS(),
                                                generator.maxConcurrent(), {});
    }
    populate.endNs = x.clock.nowNs();
    o.populate = std::move(populate);
    if (x.cancel) {
        o.cancelled = true;
        return o;
    }
    const auto resets = reset();
    o.summary["reset"] = toJson(resets);
    if (!(o.error = firstFailure(resets)).empty())
        return o;
    const auto before = EvidenceSnapshot::take(arm.path, arm.engineUrl, {}, x.enginePgid);
    o.measuredStartNs = x.clock.nowNs();
    auto m = options;
    m.requests = static_cast<int>(data.measured.size());
    LoadGenerator generator(m, data.measured, x.clock);
    o.requests = generator.run({}, &x.cancel);
    o.cancelled = x.cancel;
    const auto after = EvidenceSnapshot::take(arm.path, arm.engineUrl, {}, x.enginePgid);
    auto summary =
        LoadSummary::compute(o.requests, generator.durationS(), generator.maxConcurrent(), {});
    summary["reset"] = o.summary["reset"];
    summary["populate"] = o.populate->summary;
    o.summary = std::move(summary);
    EvidenceSnapshot::addEngineIo(before, after, o.summary);

    ValidityChecks::CacheExpectation expect;
    expect.recompute = arm.cache == ExperimentPlan::Arm::Cache::Recompute;
    expect.minHitShare = x.minHitShare;
    const ColdRecoveryEvidence evidence(atStart, before, after,
                                        load.impliedKv(o.populate->requests), expect);
    o.summary["evidence"] = evidence.toJson();
    if (o.cancelled)
        return o;
    MeasuredLoad::addEvidenceChecks(o.validity, evidence, true, true);
    o.validity.push_back(errorsCheck(o.requests, x.maxFailureRate));
    return o;
}

// ", populate TTFT p50 1.20 s, measured 0.45 s": both phases of a cold-recovery run.
std::string ArmWorkload::phaseTtfts(const Phase& populate, const nlohmann::json& measured) {
    auto p50 = [](const nlohmann::json& s) -> std::string {
        const auto it = s.find("median_ttft_ms");
        return it != s.end() && it->is_number() ? UnitFormat::kpi(it->get<double>() / 1000, "s")
                                                : "n/a";
    };
    return ", TTFT p50: populate " + p50(populate.summary) + ", measured " + p50(measured);
}

} // namespace tierscope
