#include "app/commands/RecordCommand.h"

#include "app/commands/RemoteRecord.h"
#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/PrometheusSource.h"
#include "app/common/RecorderOptions.h"
#include "app/common/SummaryPrinter.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "collectors/Recorder.h"
#include "core/store/SessionSummary.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/DurationParser.h"
#include "core/util/UnitFormat.h"
#include "loadgen/LoadGenerator.h"

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

void ensureParentDirectory(const std::string& dbPath) {
    const auto parent = std::filesystem::path(dbPath).parent_path();
    if (parent.empty())
        return;
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
        throw StoreError(StoreError::Code::CannotWrite,
                         "cannot create " + parent.string() + ": " + ec.message());
}

void printProgress(const Recorder& recorder, double elapsed, double total) {
    const auto stats = recorder.stats();
    std::fprintf(stderr, "\rrecording session %lld: %s%s, %zu metrics, %s samples   ",
                 static_cast<long long>(recorder.sessionId()), UnitFormat::seconds(elapsed).c_str(),
                 total > 0 ? (" of " + UnitFormat::seconds(total)).c_str() : "",
                 recorder.metricCount(), UnitFormat::count(stats.committedSamples).c_str());
    std::fflush(stderr);
}

} // namespace

CLI::App* RecordCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand(
        "record", "Record this machine's host and storage metrics into the workspace");
    cmd->add_option("--label", options.label, "Session label, e.g. \"baseline run 3\"");
    cmd->add_option("--storage-profile", options.storageProfile,
                    "Storage configuration under test, e.g. local-nvme or fx100-nvmeof-rdma");
    // Only a missing --duration means "until Ctrl-C": an empty one is a mistake (an unset
    // shell variable), not a request to record forever.
    cmd->add_option("--duration", options.duration,
                    "Stop after this long (30s, 10m, 1h); default: until Ctrl-C")
        ->check(CLI::Validator(
            [](const std::string& s) {
                return s.empty() ? std::string("must be a positive duration such as 30s, 10m or "
                                               "1h, not empty (leave it out to record until "
                                               "Ctrl-C)")
                                 : std::string();
            },
            "DURATION"));
    cmd->add_option("--interval", options.interval, RecorderOptions::kIntervalHelp)
        ->capture_default_str();
    cmd->add_flag("-q,--quiet", options.quiet, "No progress line and no summary");
    cmd->add_option("--engine", options.engines,
                    "Inference engine /metrics URL to scrape (vLLM, SGLang, LMCache); repeatable");
    cmd->add_option("--engine-token-env", options.engineTokenEnv,
                    "Name of an environment variable holding a bearer token for the engines");
    cmd->add_option("--engine-interval", options.engineInterval, "Engine scrape interval")
        ->capture_default_str();
    cmd->add_flag("--engine-raw", options.engineRaw,
                  "Also record every numeric series of each engine (up to 10,000 series and "
                  "2,000 new ones a scrape; samples left out are counted in "
                  "engine/<id>/raw_samples_dropped)");
    cmd->add_option("--prometheus", options.prometheus,
                    "Record from this Prometheus server (its nodes' tierscope agents, "
                    "node_exporters, GPU exporters and engines) instead of this machine");
    cmd->add_option("--nodes", options.nodes, "With --prometheus: regex on the instance label")
        ->capture_default_str();
    cmd->add_option("--templates", options.templates,
                    "With --prometheus: TOML file of extra metric templates");
    cmd->add_option("--target", options.target, TargetOption::kHelp);
    cmd->add_flag("--insecure", options.insecure,
                  "Do not verify engines' TLS certificates (warns)");
    return cmd;
}

int RecordCommand::run(const GlobalOptions& global, const Options& options) {
    if (const auto error = RecorderOptions::intervalError(options.interval)) {
        std::cerr << "tierscope record: " << *error << "\n";
        return kExitUsage;
    }
    std::optional<std::chrono::nanoseconds> duration;
    if (!options.duration.empty()) {
        duration = DurationParser::parse(options.duration);
        if (!duration || duration->count() <= 0) {
            std::cerr << "tierscope record: --duration must be a positive duration such as 30s, "
                         "10m or 1h (got \""
                      << options.duration << "\")\n";
            return kExitUsage;
        }
    }

    // Scraped with libcurl, which would read file:// and speak gopher:// and the rest; a URL
    // that can never be scraped made a recording without the engine that exited 0.
    for (const auto& url : options.engines)
        if (const auto error = RecorderOptions::urlError("--engine", url)) {
            std::cerr << "tierscope record: " << *error << "\n";
            return kExitUsage;
        }
    if (!options.prometheus.empty() && !LoadGenerator::httpUrl(options.prometheus)) {
        std::cerr << "tierscope record: --prometheus must be an http:// or https:// URL, not "
                  << LoadGenerator::redacted(options.prometheus) << "\n";
        return kExitUsage;
    }

    if (TargetOption::remote(options.target))
        return RemoteRecord::run(global, options);
    if (!options.prometheus.empty()) {
        PrometheusSource::Options p;
        p.url = options.prometheus;
        p.nodes = options.nodes;
        p.templates = options.templates;
        p.step = options.interval;
        p.label = options.label;
        p.storageProfile = options.storageProfile;
        p.quiet = options.quiet;
        return PrometheusSource::record(global, p, duration);
    }

    RecorderOptions::Input input;
    input.dbPath = global.dbPath();
    input.label = options.label;
    input.storageProfile = options.storageProfile;
    input.interval = options.interval;
    input.engineInterval = options.engineInterval;
    for (const auto& url : options.engines)
        input.engines.push_back({url, options.engineTokenEnv});
    input.engineRaw = options.engineRaw;
    input.insecure = options.insecure;
    auto recording = RecorderOptions::build(input);
    if (const auto* error = std::get_if<std::string>(&recording)) {
        std::cerr << "tierscope record: " << *error << "\n";
        return kExitUsage;
    }
    const std::string dbPath = global.dbPath();
    ensureParentDirectory(dbPath);
    Recorder recorder(std::move(std::get<Recorder::Options>(recording)));

    const bool showProgress = !options.quiet && isatty(STDERR_FILENO);
    const auto started = std::chrono::steady_clock::now();
    const double total = duration ? std::chrono::duration<double>(*duration).count() : 0.0;
    recorder.start();
    auto nextProgress = started;
    while (!CancelOnSignal::flag() && !recorder.error()) {
        const auto now = std::chrono::steady_clock::now();
        if (duration && now - started >= *duration)
            break;
        if (showProgress && now >= nextProgress) {
            printProgress(recorder, std::chrono::duration<double>(now - started).count(), total);
            nextProgress = now + std::chrono::seconds(1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    recorder.stop();
    if (showProgress)
        std::fputs("\n", stderr);

    if (const auto error = recorder.error()) {
        std::cerr << "tierscope record: recording stopped early: " << *error
                  << " (samples committed before the error are kept in session "
                  << recorder.sessionId() << ")\n";
        return kExitCannotWrite;
    }
    if (!options.quiet) {
        Store store(dbPath, Store::Mode::ReadOnly);
        std::ostringstream summary;
        SummaryPrinter::print(summary, SessionSummary::compute(store, recorder.sessionId()),
                              dbPath);
        std::cout << TerminalOutput::shown(STDOUT_FILENO, summary.str());
    }
    return kExitOk;
}

} // namespace tierscope
