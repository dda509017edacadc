#include "app/RunCommand.h"

#include "app/CancelOnSignal.h"
#include "app/ExitCode.h"
#include "collectors/Datasets.h"
#include "collectors/LoadGenerator.h"
#include "collectors/Recorder.h"
#include "collectors/ShellCommand.h"
#include "core/Comparison.h"
#include "core/ComparisonReport.h"
#include "core/LoadSummary.h"
#include "core/RunSchedule.h"
#include "core/SizeParser.h"
#include "core/Store.h"
#include "core/UnitFormat.h"
#include "core/Version.h"
#include "workloads/CheckpointSaveWorkload.h"
#include "workloads/IoRunner.h"
#include "workloads/KvRestoreWorkload.h"
#include "workloads/ModelLoadWorkload.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/WorkloadError.h"

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

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

std::string substitute(std::string text, const ExperimentPlan::Arm& arm) {
    for (std::size_t at; (at = text.find("{path}")) != std::string::npos;)
        text.replace(at, 6, arm.path);
    return text;
}

// The data a read workload needs, written once per arm outside any measurement.
void prepareData(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm) {
    if (w.kind != "model-load" && w.kind != "kv-restore")
        return;
    std::filesystem::create_directories(arm.path);
    auto manifest = StorageManifest::load(arm.path);
    if (manifest.findDataset(w.kind))
        return;
    IoJob job;
    if (w.kind == "model-load") {
        job = StorageDataset::prepareModelLoad(manifest, sizeParam(w.params, "size", "1GiB"),
                                               intParam(w.params, "files", 4));
    } else {
        StorageDataset::KvLayout layout;
        const std::string name = param(w.params, "geometry", "Llama-3.1-8B");
        const auto g = KvGeometry::findPreset(name);
        if (!g)
            throw WorkloadError(WorkloadError::Kind::NotFound, "no geometry preset " + name);
        layout.geometry = *g;
        layout.tokens = intParam(w.params, "tokens", 2048);
        layout.prefixes = intParam(w.params, "prefixes", 8);
        layout.chunkTokens = intParam(w.params, "chunk_tokens", 256);
        job = StorageDataset::prepareKvRestore(manifest, layout);
    }
    std::cerr << "preparing " << w.kind << " data in " << arm.path << "\n";
    IoRunner(job).run(&CancelOnSignal::flag());
}

struct Outcome {
    std::string workload;
    nlohmann::json params;
    nlohmann::json summary;
    std::vector<RequestRecord> requests;
    bool cancelled = false;
};

Outcome storageRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm,
                   int concurrency) {
    const auto block = static_cast<std::uint32_t>(sizeParam(w.params, "block_size", "1MiB"));
    const int depth = intParam(w.params, "queue_depth", 4);
    Outcome o;
    o.workload = "storage/" + w.kind;
    auto manifest = StorageManifest::load(arm.path);
    IoRunner::Result result;
    if (w.kind == "model-load") {
        ModelLoadWorkload load({arm.path,
                                concurrency > 0 ? concurrency : intParam(w.params, "parallel", 4),
                                depth, block, true});
        const IoJob job = load.job();
        result = IoRunner(job).run(&CancelOnSignal::flag());
        o.params = load.params();
        o.summary = load.summarize(job, result);
    } else if (w.kind == "kv-restore") {
        KvRestoreWorkload restore({arm.path, concurrency > 0 ? concurrency : 16,
                                   intParam(w.params, "requests", 0),
                                   intParam(w.params, "tokens", 0), depth, block, true},
                                  manifest);
        result = IoRunner(restore.job()).run(&CancelOnSignal::flag());
        o.params = restore.params();
        o.summary = restore.summarize(result);
    } else {
        const int files = intParam(w.params, "files", 4);
        CheckpointSaveWorkload save({arm.path, sizeParam(w.params, "size", "1GiB"), files,
                                     concurrency > 0 ? concurrency : files, depth, block, true});
        result = IoRunner(save.saveJob(manifest)).run(&CancelOnSignal::flag());
        o.params = save.params();
        o.summary = save.summarize(result, nullptr);
        StorageDataset::remove(manifest, "checkpoint-save");
    }
    o.cancelled = result.cancelled;
    return o;
}

Outcome loadRun(const ExperimentPlan::Workload& w, const ExperimentPlan::Arm& arm, int concurrency,
                const WallClock& clock) {
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
    const auto seed = static_cast<std::uint64_t>(intParam(w.params, "seed", 1));
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
    o.requests = generator.run({}, &CancelOnSignal::flag());
    o.cancelled = CancelOnSignal::flag();
    o.summary =
        LoadSummary::compute(o.requests, generator.durationS(), generator.maxConcurrent(), {});
    o.params = {{"url", arm.engineUrl},
                {"model", options.model},
                {"concurrency", options.concurrency},
                {"requests", options.requests},
                {"input_len", input},
                {"output_len", output}};
    return o;
}

std::string experimentName(const ExperimentPlan& plan, const ExperimentPlan::Variant& v) {
    const auto& w = plan.workloads[v.workload];
    return plan.name + "/" + w.kind +
           (v.concurrency > 0 ? "@c" + std::to_string(v.concurrency) : "");
}

} // namespace

CLI::App* RunCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "run", "Run an A/B experiment plan (TOML) headless: arms interleaved, the machine "
               "recorded throughout, then the comparison with its gates");
    cmd->add_option("plan", o.plan, "Plan file, e.g. resources/plans/disk-vs-shm.toml")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_flag("--dry-run", o.dryRun, "Print the run order and exit");
    cmd->add_option("--format", o.format, "Report format: text, md, json or html")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "html"}));
    cmd->add_option("--report", o.report, "Write the comparison report here (default: stdout)");
    cmd->footer("Exit status: 0 when the plan ran and every gate passed; 11 a gate failed; "
                "12 a gate was inconclusive; 1 the experiment is incomplete (a failed setup "
                "with on_failure = \"stop\", or Ctrl-C).");
    return cmd;
}

int RunCommand::run(const GlobalOptions& global, const Options& o) {
    ExperimentPlan plan;
    try {
        std::ifstream in(o.plan);
        std::stringstream text;
        text << in.rdbuf();
        plan = ExperimentPlan::parse(text.str());
    } catch (const std::exception& e) {
        std::cerr << "tierscope run: " << o.plan << ": " << e.what() << "\n";
        return kExitUsage;
    }
    const auto schedule = RunSchedule::build(plan);
    if (o.dryRun) {
        for (std::size_t i = 0; i < schedule.size(); ++i) {
            const auto& s = schedule[i];
            std::printf("%3zu  %-16s %-28s %s\n", i + 1, plan.arms[s.arm].label.c_str(),
                        experimentName(plan, s.variant).c_str(),
                        s.warmup ? "warm-up"
                                 : ("repetition " + std::to_string(s.repetition)).c_str());
        }
        return kExitOk;
    }

    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(global.dbPath()).parent_path(), ec);
    Recorder::Options ro;
    ro.dbPath = global.dbPath();
    ro.label = plan.name;
    ro.storageProfile = "experiment";
    ro.interval = std::chrono::milliseconds(200);
    Recorder recorder(ro);
    Store store(global.dbPath(), Store::Mode::ReadWrite);
    recorder.start();
    const WallClock& clock = recorder.clock();
    std::optional<CancelOnSignal> cancel(std::in_place);
    bool incomplete = false;
    int failed = 0;
    for (std::size_t i = 0; i < schedule.size() && !incomplete; ++i) {
        const auto& s = schedule[i];
        const auto& arm = plan.arms[s.arm];
        const auto& w = plan.workloads[s.variant.workload];
        const std::string experiment = experimentName(plan, s.variant);
        std::fprintf(stderr, "[%zu/%zu] %s, %s, %s\n", i + 1, schedule.size(), arm.label.c_str(),
                     experiment.c_str(),
                     s.warmup ? "warm-up" : ("repetition " + std::to_string(s.repetition)).c_str());
        auto env = arm.env;
        env["TIERSCOPE_ARM"] = arm.label;
        env["TIERSCOPE_PATH"] = arm.path;
        env["TIERSCOPE"] = std::filesystem::read_symlink("/proc/self/exe").string();
        const std::int64_t start = clock.nowNs();
        auto fail = [&](const std::string& status, const nlohmann::json& why) {
            const auto run = store.createRun(recorder.sessionId(), "storage/" + w.kind, "{}", start,
                                             experiment, arm.label, s.repetition);
            store.finishRun(run, clock.nowNs(), status, why.dump());
            std::fprintf(stderr, "  %s: %s\n", status.c_str(), why.value("error", "").c_str());
            ++failed;
            incomplete = incomplete || plan.stopOnFailure || status == "cancelled";
        };
        if (!arm.setup.empty()) {
            const auto setup = ShellCommand::run(substitute(arm.setup, arm), env, arm.timeout);
            if (!setup.ok()) {
                fail("failed", {{"error", "setup " + setup.describe()}, {"output", setup.output}});
                continue;
            }
        }
        try {
            prepareData(w, arm);
            const std::int64_t runStart = clock.nowNs();
            Outcome out = w.kind == "load" ? loadRun(w, arm, s.variant.concurrency, clock)
                                           : storageRun(w, arm, s.variant.concurrency);
            const auto run = store.createRun(recorder.sessionId(), out.workload, out.params.dump(),
                                             runStart, experiment, arm.label, s.repetition);
            if (!out.requests.empty())
                store.addRequests(run, out.requests);
            const std::string status = out.cancelled ? "cancelled"
                                       : s.warmup    ? "warmup"
                                                     : "completed";
            store.finishRun(run, clock.nowNs(), status, out.summary.dump());
            incomplete = incomplete || out.cancelled;
        } catch (const std::exception& e) {
            fail(CancelOnSignal::flag() ? "cancelled" : "failed", {{"error", e.what()}});
        }
        if (!arm.teardown.empty()) {
            const auto teardown =
                ShellCommand::run(substitute(arm.teardown, arm), env, arm.timeout);
            if (!teardown.ok())
                std::fprintf(stderr, "  teardown %s: %s\n", teardown.describe().c_str(),
                             teardown.output.c_str());
        }
    }
    cancel.reset();
    store.addEvent(recorder.sessionId(), clock.nowNs(),
                   incomplete ? "experiment-incomplete" : "experiment-end", plan.name);
    recorder.stop();

    // B against A for every further arm and every variant.
    std::string report;
    bool gateFailed = false, gateInconclusive = false;
    std::vector<Gate> gates;
    for (const auto& text : plan.gates) {
        std::string unused; // ExperimentPlan::parse has checked every gate
        gates.push_back(*Gate::parse(text, unused));
    }
    for (const auto& variant : plan.variants()) {
        const std::string experiment = experimentName(plan, variant);
        auto side = [&](const ExperimentPlan::Arm& arm) {
            ComparisonSide s;
            s.label = arm.label +
                      (arm.storageProfile.empty() ? "" : " [" + arm.storageProfile + "]") + ", " +
                      experiment;
            s.runs = store.runsOfArm(experiment, arm.label);
            for (const auto& r : s.runs)
                s.requests.push_back(store.requests(r.id));
            return s;
        };
        const auto a = side(plan.arms[0]);
        for (std::size_t b = 1; b < plan.arms.size(); ++b) {
            ComparisonReport::Input in;
            const auto sideB = side(plan.arms[b]);
            in.labelA = a.label;
            in.labelB = sideB.label;
            in.kpis = Comparison::compare(a, sideB, plan.seed);
            for (const auto& gate : gates) {
                bool measured = false;
                for (const auto& k : in.kpis)
                    if (k.name == gate.kpi) {
                        in.gates.emplace_back(gate, gate.judge(k));
                        measured = true;
                    }
                if (!measured)
                    continue; // a gate on another workload's KPI
                gateFailed = gateFailed || in.gates.back().second.verdict == Gate::Verdict::Fail;
                gateInconclusive = gateInconclusive ||
                                   in.gates.back().second.verdict == Gate::Verdict::Inconclusive;
            }
            in.toolVersion = kToolVersion;
            in.generatedUtc = UnitFormat::utcTime(clock.nowNs());
            report += ComparisonReport::render(o.format, in);
            report += "\n";
        }
    }
    if (o.report.empty()) {
        std::cout << report;
    } else {
        std::ofstream(o.report) << report;
    }
    std::fprintf(stderr, "experiment \"%s\": %zu runs, %d failed%s; session %lld in %s\n",
                 plan.name.c_str(), schedule.size(), failed, incomplete ? ", INCOMPLETE" : "",
                 static_cast<long long>(recorder.sessionId()), global.dbPath().c_str());
    if (incomplete)
        return kExitFailure;
    return gateFailed ? kExitGateFailed : gateInconclusive ? kExitGateInconclusive : kExitOk;
}

} // namespace tierscope
