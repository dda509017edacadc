#include "app/commands/LoadCommand.h"

#include "app/commands/LoadTraceOptions.h"
#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "collectors/storage/PathDevice.h"
#include "core/compare/ValidityChecks.h"
#include "core/report/ReportFile.h"
#include "core/stats/LoadAccumulator.h"
#include "core/stats/LoadSummary.h"
#include "core/store/RequestWriter.h"
#include "core/store/Store.h"
#include "core/util/DurationParser.h"
#include "core/util/Version.h"
#include "experiments/CacheReset.h"
#include "experiments/ColdRecoveryEvidence.h"
#include "experiments/EvidenceSnapshot.h"
#include "experiments/MeasuredLoad.h"
#include "experiments/PortHolder.h"
#include "loadgen/ClientSaturation.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"
#include "workloads/WorkloadError.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <unistd.h>

namespace tierscope {

namespace {

bool parseRange(const std::string& text, int& lo, int& hi) {
    try {
        const auto dash = text.find('-');
        lo = std::stoi(text.substr(0, dash));
        hi = dash == std::string::npos ? lo : std::stoi(text.substr(dash + 1));
    } catch (...) {
        return false;
    }
    return lo > 0 && hi >= lo;
}

std::optional<double> number(const nlohmann::json& s, const std::string& key) {
    const auto it = s.find(key);
    return it != s.end() && it->is_number() ? std::optional<double>(it->get<double>())
                                            : std::nullopt;
}

// vLLM bench serve's result block. A figure that was not measured is left out (never 0.00),
// and one line says why.
void printSummary(const nlohmann::json& s, bool scheduled) {
    auto line = [](const char* name, double v, const char* fmt = "%.2f") {
        char value[64];
        std::snprintf(value, sizeof value, fmt, v);
        std::printf("%-40s %s\n", name, value);
    };
    auto optional = [&](const char* name, const std::string& key, const char* fmt = "%.2f") {
        if (const auto v = number(s, key))
            line(name, *v, fmt);
    };
    auto block = [&](const char* title, const std::string& key, const char* label) {
        if (!number(s, "mean_" + key + "_ms"))
            return;
        std::printf("%s\n", title);
        for (const auto& [stat, name] : {std::pair{"mean", "Mean"}, std::pair{"median", "Median"},
                                         std::pair{"p90", "P90"}, std::pair{"p99", "P99"}}) {
            const std::string text = std::string(name) + " " + label + " (ms):";
            optional(text.c_str(), std::string(stat) + "_" + key + "_ms");
        }
    };
    const long completed = s.value("completed", 0L);
    std::printf("============ Serving Benchmark Result ============\n");
    line("Successful requests:", static_cast<double>(completed), "%.0f");
    line("Failed requests:", s.value("failed", 0.0), "%.0f");
    optional("Maximum request concurrency:", "max_concurrency", "%.0f");
    optional("Request rate configured (RPS):", "request_rate");
    line("Benchmark duration (s):", s.value("duration", 0.0));
    optional("Total input tokens:", "total_input_tokens", "%.0f");
    optional("Total generated tokens:", "total_output_tokens", "%.0f");
    optional("Request throughput (req/s):", "request_throughput");
    optional("Request goodput (req/s):", "request_goodput");
    optional("Output token throughput (tok/s):", "output_throughput");
    optional("Peak concurrent requests:", "max_concurrent_requests");
    optional("Total Token throughput (tok/s):", "total_token_throughput");
    const long noOutput = s.value("requests_without_output_tokens", 0L);
    const long noInput = s.value("requests_without_input_tokens", 0L);
    if (noOutput > 0)
        std::printf("Generated tokens unknown: %ld of %ld responses had no usage chunk, so token "
                    "totals, token throughput and TPOT%s are not reported\n",
                    noOutput, completed, noOutput < completed ? " of those requests" : "");
    if (noInput > 0)
        std::printf("Input tokens unknown: %ld of %ld responses reported no prompt_tokens, so "
                    "input and total token figures are not reported\n",
                    noInput, completed);
    if (completed == 0)
        std::printf("No latency figures: no request succeeded\n");
    block("---------------Time to First Token----------------", "ttft", "TTFT");
    if (scheduled)
        block("-----TTFT from scheduled send (incl. client queueing)-----", "ttft_from_scheduled",
              "TTFT");
    block("-----Schedule error (actual - scheduled send)-----", "schedule_error", "error");
    block("-----Time per Output Token (excl. 1st token)------", "tpot", "TPOT");
    block("---------------Inter-token Latency----------------", "itl", "ITL");
    block("----------------End-to-end Latency----------------", "e2el", "E2EL");
    std::printf("==================================================\n");
    std::printf("%s", ClientSaturation::describe(s.value("client", nlohmann::json())).c_str());
}

// cold-recovery's populate phase, stored as a run of status "populate", then the resets
// between the phases. False when a reset failed: the measured phase would not be cold.
bool runPopulate(Store& store, LoadRecording& recording, const nlohmann::json& params,
                 LoadGenerator::Options options, const std::vector<Conversation>& documents,
                 const WallClock& clock, const LoadCommand::Options& o,
                 std::vector<RequestRecord>& requests) {
    const std::int64_t session = recording.sessionId();
    options.requests = static_cast<int>(documents.size());
    options.warmup = 0;
    options.duration = {};
    const std::int64_t run = store.createRun(session, "load", params.dump(), clock.nowNs());
    LoadGenerator generator(options, documents, clock);
    requests = generator.run({}, &CancelOnSignal::flag());
    recording.settle(); // the documents' observations are scraped inside this run
    store.addRequests(run, requests);
    auto summary =
        LoadSummary::compute(requests, generator.durationS(), generator.maxConcurrent(), {});
    CacheReset::Steps steps;
    steps.resetPrefixCache = o.resetPrefixCache;
    steps.engineUrl = o.url;
    steps.command = o.reset;
    const auto resets = CacheReset::run(steps);
    nlohmann::json outcomes = nlohmann::json::array();
    for (const auto& r : resets)
        outcomes.push_back(r.toJson());
    summary["reset"] = outcomes;
    store.finishRun(run, clock.nowNs(), "populate", summary.dump());
    const auto it = summary.find("median_ttft_ms");
    char ttft[32] = "n/a";
    if (it != summary.end() && it->is_number())
        std::snprintf(ttft, sizeof ttft, "%.2f ms", it->get<double>());
    std::printf("Populate phase: %zu documents, %ld completed, median TTFT %s (run %lld)\n",
                documents.size(), summary.value("completed", 0L), ttft,
                static_cast<long long>(run));
    for (const auto& r : resets) {
        std::printf("Reset: %s\n", r.describe().c_str());
        if (!r.ok) {
            std::cerr << "tierscope load: reset failed, so the measured phase would not be cold: "
                      << r.describe() << "\n";
            return false;
        }
    }
    return true;
}

} // namespace

CLI::App* LoadCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "load", "Drive an OpenAI-compatible engine with streamed requests and measure "
                "TTFT, ITL, TPOT and throughput (vLLM bench serve definitions)");
    cmd->add_option("--url", o.url, "Server base URL (http://host:port) or a full /v1/... endpoint")
        ->required();
    cmd->add_option("--model", o.model, "Model name to request")->required();
    cmd->add_option("--api", o.api, "completions or chat")
        ->check(CLI::IsMember({"completions", "chat"}))
        ->capture_default_str();
    auto* conc = cmd->add_option("--concurrency", o.concurrency, "Closed loop: requests in flight")
                     ->check(CLI::PositiveNumber);
    auto* rate =
        cmd->add_option("--rate", o.rate, "Open loop: requests per second (gamma arrivals)")
            ->check(CLI::PositiveNumber);
    conc->excludes(rate);
    cmd->add_option("--burstiness", o.burstiness, "Gamma shape; 1 = Poisson")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    auto* requests = cmd->add_option("--requests", o.requests, "Number of measured requests")
                         ->check(CLI::PositiveNumber);
    auto* duration =
        cmd->add_option("--duration", o.duration, "Stop issuing after this long (30s, 5m)");
    requests->excludes(duration);
    cmd->add_option("--warmup", o.warmup, "Requests sent first and left out of the results")
        ->capture_default_str();
    cmd->add_option("--dataset", o.dataset,
                    "synthetic, shared-prefix, jsonl, cold-recovery (long documents sent "
                    "once to populate the KV store, then questions over them: the measured "
                    "phase; --requests is documents x questions) or trace (a production trace "
                    "replayed at its own times: --trace, --trace-format)")
        ->check(CLI::IsMember({"synthetic", "shared-prefix", "jsonl", "cold-recovery", "trace"}))
        ->capture_default_str();
    cmd->add_option("--dataset-path", o.datasetPath, "JSONL file for --dataset jsonl");
    cmd->add_option("--input-len", o.inputLen, "Synthetic prompt length in words: N or MIN-MAX")
        ->capture_default_str();
    cmd->add_option("--output-len", o.outputLen, "max_tokens per request")->capture_default_str();
    cmd->add_flag("--ignore-eos", o.ignoreEos,
                  "Send ignore_eos: true, so every output is --output-len tokens long (as vLLM "
                  "bench serve's --ignore-eos): output lengths, E2E, TPOT and throughput then "
                  "do not differ between runs by where the model stopped");
    cmd->add_option("--extra-body", o.extraBody,
                    "A JSON object merged into every request body, e.g. '{\"top_k\": 1, "
                    "\"priority\": 0}' (not model, prompt, messages, stream, stream_options, "
                    "max_tokens, max_completion_tokens or n)");
    cmd->add_option("--users", o.users, "shared-prefix: conversations")->capture_default_str();
    cmd->add_option("--system-tokens", o.systemTokens,
                    "shared-prefix: shared system prompt length (words)")
        ->capture_default_str();
    cmd->add_option("--rounds", o.rounds, "shared-prefix: rounds per conversation")
        ->capture_default_str();
    cmd->add_option("--question-tokens", o.questionTokens, "shared-prefix: question length (words)")
        ->capture_default_str();
    cmd->add_option("--documents", o.documents, "cold-recovery: documents")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--document-tokens", o.documentTokens, "cold-recovery: document length (words)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--questions", o.questions, "cold-recovery: questions per document")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--reset-prefix-cache", o.resetPrefixCache,
                  "cold-recovery: POST {url}/reset_prefix_cache between the phases");
    cmd->add_option("--reset", o.reset,
                    "cold-recovery: a shell command run between the phases (e.g. clear a CPU "
                    "KV tier)");
    cmd->add_option("--goodput", o.goodput,
                    "SLOs for goodput, e.g. \"ttft:500 tpot:50 e2el:5000\" (ms)");
    cmd->add_option("--max-failure-rate", o.maxFailureRate,
                    "Validity check: fail the run when more requests failed than this share "
                    "(0..1; without it any failure is a warning)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--kv-path", o.kvPath,
                    "The directory the engine's KV store reads from (e.g. LMCache's local "
                    "disk): the run's bytes route reads its block device, and for cold "
                    "recovery its reads and the page cache are checked against the KV the "
                    "documents imply (with --geometry)");
    cmd->add_option("--geometry", o.geometry,
                    "cold-recovery: the model's KV geometry preset (see `storage geometries`), "
                    "for the KV bytes the documents imply");
    cmd->add_option("--kv-bytes-per-token", o.kvBytesPerToken,
                    "cold-recovery: KV bytes per token, instead of --geometry")
        ->check(CLI::PositiveNumber)
        ->excludes("--geometry");
    cmd->add_option("--out", o.out, "Write the result as JSON to this file");
    cmd->add_option("--label", o.label, "Session label");
    cmd->add_option("--storage-profile", o.storageProfile, "Storage configuration under test");
    LoadRecording::attach(*cmd, o.recording);
    LoadTraceOptions::attach(*cmd, o.trace);
    cmd->add_option("--token-env", o.tokenEnv, "Environment variable holding a bearer token");
    cmd->add_flag("--insecure", o.insecure, "Do not verify TLS certificates (warns)");
    cmd->add_option("--seed", o.seed, "Seed for prompts and arrivals")->capture_default_str();
    cmd->add_option("--request-timeout", o.requestTimeout, "Give up on one request after this long")
        ->capture_default_str();
    cmd->add_option("--client-threads", o.clientThreads,
                    "Client event loops, each on its own thread (default: one per core)")
        ->check(CLI::PositiveNumber);
    return cmd;
}

namespace {

// The checks an experiment's load and cold-recovery runs get, for the measured phase of this
// one: errors always; for cold recovery, the cache evidence where the engine's /metrics
// answered, and the storage evidence and page cache where --kv-path names the KV store's
// directory. As in an experiment, only cold recovery promises that KV comes back from
// storage: a synthetic prompt shares no prefix to hit.
nlohmann::json validity(const LoadCommand::Options& o, const nlohmann::json& summary,
                        const std::optional<ColdRecoveryEvidence>& evidence) {
    nlohmann::json checks = nlohmann::json::array();
    const long failed = summary.value("failed", 0L);
    checks.push_back(
        ValidityChecks::errors(failed, failed + summary.value("completed", 0L), o.maxFailureRate));
    if (evidence)
        MeasuredLoad::addEvidenceChecks(checks, *evidence, !o.kvPath.empty(), false);
    return checks;
}

// What the flags ask for, checked: the generator's options, the prompts and the goodput SLO.
struct Setup {
    LoadGenerator::Options options;
    MeasuredLoad load;
    Datasets::ColdRecovery prompts;
    std::optional<LoadSummary::Slo> slo;
    std::unique_ptr<TraceSchedule> trace; // --dataset trace: requests and times come from it
};

std::optional<std::string> generatorOptions(const LoadCommand::Options& o, Setup& s) {
    auto& options = s.options;
    options.url = o.url;
    options.model = o.model;
    options.api = o.api;
    options.concurrency = o.concurrency;
    options.rate = o.rate;
    options.burstiness = o.burstiness;
    options.requests = o.requests;
    options.warmup = o.warmup;
    options.tokenEnvVar = o.tokenEnv;
    options.insecureTls = o.insecure;
    options.seed = o.seed;
    options.clientThreads = o.clientThreads;
    options.ignoreEos = o.ignoreEos;
    if (!o.extraBody.empty()) {
        options.extraBody = nlohmann::json::parse(o.extraBody, nullptr, false);
        if (options.extraBody.is_discarded())
            return "--extra-body is not JSON: " + o.extraBody;
        if (const auto why = LoadGenerator::checkExtraBody(options.extraBody))
            return "--extra-body: " + *why;
    }
    if (!o.duration.empty()) {
        const auto d = DurationParser::parse(o.duration);
        if (!d || d->count() <= 0)
            return "--duration must be a duration such as 30s or 5m";
        options.duration = *d;
    }
    const auto timeout = DurationParser::parse(o.requestTimeout);
    if (!timeout || timeout->count() <= 0)
        return "--request-timeout must be a duration such as 60s";
    options.requestTimeout = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout);
    if (!o.goodput.empty() && !(s.slo = LoadSummary::parseSlo(o.goodput)))
        return "--goodput takes ttft:MS tpot:MS e2el:MS";
    return std::nullopt;
}

std::optional<std::string> prompts(const LoadCommand::Options& o, Setup& s) {
    auto& load = s.load;
    load.datasetPath = o.datasetPath;
    load.outputLen = o.outputLen;
    load.users = o.users;
    load.systemTokens = o.systemTokens;
    load.rounds = o.rounds;
    load.questionTokens = o.questionTokens;
    load.documents = o.documents;
    load.documentTokens = o.documentTokens;
    load.questions = o.questions;
    load.seed = o.seed;
    // Sizes are checked by Datasets before anything is allocated; its message names the limit.
    const long long needed = static_cast<long long>(o.requests > 0 ? o.requests : 1000) + o.warmup;
    if (load.dataset == "synthetic") {
        if (!parseRange(o.inputLen, load.inputMin, load.inputMax))
            return "--input-len takes N or MIN-MAX";
        if (needed > std::numeric_limits<int>::max())
            return "--requests plus --warmup must be at most " +
                   std::to_string(std::numeric_limits<int>::max());
        load.count = static_cast<int>(needed);
    }
    if (load.dataset == "jsonl" && o.datasetPath.empty())
        return "--dataset jsonl needs --dataset-path FILE";
    try {
        s.prompts = load.prompts();
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    if (load.coldRecovery() && o.requests <= 0 && o.duration.empty())
        s.options.requests = static_cast<int>(s.prompts.measured.size());
    return std::nullopt;
}

// The usage error, or nothing with `s` filled.
std::optional<std::string> setUp(const LoadCommand::Options& o, Setup& s) {
    // Only the engine is a target: never file://, gopher:// and the like. The URL is shown
    // without its password wherever it is printed or stored.
    if (!LoadGenerator::httpUrl(o.url))
        return "--url must be an http:// or https:// URL, not " + LoadGenerator::redacted(o.url);
    if (auto error = LoadRecording::check(o.recording))
        return error;
    if (o.concurrency <= 0 && o.rate <= 0 && o.dataset != "trace")
        return "give --concurrency N (closed loop) or --rate R (open loop)";
    s.load.dataset = o.dataset;
    try {
        s.load.kvBytesPerToken = MeasuredLoad::bytesPerToken(
            o.kvBytesPerToken > 0 ? std::optional<double>(o.kvBytesPerToken) : std::nullopt,
            o.geometry);
    } catch (const WorkloadError& e) {
        return std::string(e.what());
    }
    if (o.requests <= 0 && o.duration.empty() && !s.load.coldRecovery() && o.dataset != "trace")
        return "give --requests K or --duration D";
    if (o.warmup < 0)
        return "--warmup must be 0 or more";
    if (o.outputLen < 1)
        return "--output-len must be 1 or more";
    if (auto error = generatorOptions(o, s))
        return error;
    if (auto error = LoadTraceOptions::open(
            o.trace, {o.dataset, o.concurrency, o.rate, o.requests, o.seed}, s.trace))
        return error;
    return s.trace ? std::nullopt : prompts(o, s);
}

nlohmann::json runParams(const LoadCommand::Options& o, const MeasuredLoad& load) {
    nlohmann::json params = {{"url", LoadGenerator::redacted(o.url)},
                             {"model", o.model},
                             {"api", o.api},
                             {"concurrency", o.concurrency},
                             {"rate", o.rate},
                             {"burstiness", o.burstiness},
                             {"requests", o.requests},
                             {"duration", o.duration},
                             {"warmup", o.warmup},
                             {"dataset", o.dataset},
                             {"input_len", o.inputLen},
                             {"output_len", o.outputLen},
                             {"seed", o.seed}};
    // What changes what the engine does is part of what a run is compared on.
    if (o.ignoreEos)
        params["ignore_eos"] = true;
    if (!o.extraBody.empty())
        params["extra_body"] = nlohmann::json::parse(o.extraBody, nullptr, false);
    if (load.coldRecovery())
        params.update(load.coldParams());
    if (o.dataset == "trace")
        params.update(LoadTraceOptions::params(o.trace));
    return params;
}

// What the measured phase left beside the stored requests and the accumulator.
struct Streamed {
    long issued = 0;
    std::string firstError;
    double durationS = 0;
    int maxConcurrent = 0;
    std::string endpoint;
    bool openLoop = false; // --rate or a trace: the schedule error is reported
    nlohmann::json trace = nlohmann::json::object(); // {"trace": its report} for a trace
    nlohmann::json client; // the client's own saturation (ClientSaturation)
};

// The measured phase: requests go to the store as they finish and into bounded summary
// statistics, so a soak of millions of requests holds only those in flight.
Streamed stream(Setup& s, const WallClock& clock, LoadAccumulator& accumulator,
                RequestWriter& writer) {
    LoadGenerator::raiseFileLimit();
    LoadGenerator generator(s.options, std::move(s.prompts.measured), clock, s.trace.get());
    Streamed out;
    bool storeFailed = false;
    std::optional<CancelOnSignal> cancel(std::in_place, std::initializer_list<int>{SIGINT});
    const bool tty = isatty(STDERR_FILENO);
    generator.run(
        [&](RequestRecord&& r) {
            accumulator.add(r);
            if (out.firstError.empty() && !r.ok())
                out.firstError = r.error.empty() ? "HTTP " + std::to_string(r.httpStatus) : r.error;
            writer.push(std::move(r));
            // A workspace that refused a batch (a full disk) refuses the rest: sending more
            // would measure requests that cannot be kept. Stop as a signal would.
            if (!storeFailed && writer.error()) {
                storeFailed = true;
                CancelOnSignal::flag() = true;
            }
        },
        [&](const LoadGenerator::Progress& p) {
            out.issued = p.issued;
            if (tty)
                std::fprintf(stderr, "\r%ld issued, %ld done, %ld failed, %ld in flight   ",
                             p.issued, p.completed, p.failed, p.inFlight);
        },
        &CancelOnSignal::flag());
    cancel.reset();
    if (tty)
        std::fputs("\n", stderr);
    writer.stop();
    out.durationS = generator.durationS();
    out.maxConcurrent = generator.maxConcurrent();
    out.client = generator.saturation().toJson();
    out.endpoint = generator.displayEndpoint();
    out.openLoop = s.options.rate > 0 || s.trace;
    if (s.trace) { // what the trace held and what of it was left out, before the figures
        out.trace["trace"] = s.trace->report();
        std::printf("%s\n", s.trace->describe().c_str());
    }
    return out;
}

} // namespace

int LoadCommand::run(const GlobalOptions& global, const Options& o) {
    Setup setup;
    if (const auto error = setUp(o, setup)) {
        std::cerr << "tierscope load: " << *error << "\n";
        return kExitUsage;
    }
    if (o.insecure)
        std::cerr << "tierscope load: warning: TLS certificate verification is OFF\n";
    const bool cold = setup.load.coldRecovery();

    const std::string dbPath = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dbPath).parent_path(), ec);
    Store store(dbPath, Store::Mode::ReadWrite);
    // The session, with this machine and the engine recorded in it from now on.
    LoadRecording recording(o.recording,
                            {dbPath, o.label.empty() ? "load " + o.model : o.label,
                             o.storageProfile, o.url, o.tokenEnv, o.insecure},
                            store);
    const std::int64_t session = recording.sessionId();
    const WallClock& clock = recording.clock();
    const nlohmann::json params = runParams(o, setup.load);
    EvidenceSnapshot atStart;
    std::vector<RequestRecord> populated; // its token counts size the KV
    recording.settle(); // the engine scraped before the first request: a phase holds only its own
    if (cold) {
        // Before the populate phase: its KV writes are what fills the page cache.
        atStart = EvidenceSnapshot::take(o.kvPath, {});
        if (!runPopulate(store, recording, params, setup.options, setup.prompts.populate, clock, o,
                         populated))
            return kExitFailure;
    }
    const std::int64_t run = store.createRun(session, "load", params.dump(), clock.nowNs());
    // Only cold recovery's checks need the device, the page cache and the engine's counters;
    // every run gets the engine's own reads where it listens on this machine.
    const int engineGroup = PortHolder::processGroup(o.url).value_or(0);
    auto evidence = [&] {
        return cold ? EvidenceSnapshot::take(o.kvPath, o.url, {}, engineGroup)
                    : EvidenceSnapshot::take({}, {}, {}, engineGroup);
    };
    const auto before = evidence();
    LoadAccumulator accumulator(setup.slo.value_or(LoadSummary::Slo{}));
    RequestWriter writer(dbPath, run);
    const Streamed streamed = stream(setup, clock, accumulator, writer);
    if (!CancelOnSignal::flag())
        recording.settle(); // the last requests' observations are scraped inside the run
    const auto after = evidence();
    auto summary =
        accumulator.summary(streamed.durationS, streamed.maxConcurrent, streamed.openLoop);
    summary.update(streamed.trace);
    EvidenceSnapshot::addEngineIo(before, after, summary);
    std::optional<ColdRecoveryEvidence> kv;
    if (cold) {
        kv.emplace(atStart, before, after, setup.load.impliedKv(populated));
        summary["evidence"] = kv->toJson();
    }
    if (!CancelOnSignal::flag())
        summary["validity"] = validity(o, summary, kv);
    summary["tool_version"] = kToolVersion;
    // The block devices under the KV store's directory, for the run's bytes route.
    if (!o.kvPath.empty())
        summary["kv_tier"] = PathDevice::resolve(o.kvPath).toJson();
    summary["endpoint"] = streamed.endpoint;
    summary["client"] = streamed.client;
    // vLLM's result fields: the configured limit, beside the observed peak
    // (max_concurrent_requests, measured requests only).
    summary["max_concurrency"] = o.concurrency > 0 ? nlohmann::json(o.concurrency) : nullptr;
    if (o.rate > 0) {
        summary["request_rate"] = o.rate;
        summary["burstiness"] = o.burstiness;
    }
    summary["session_id"] = session;
    summary["run_id"] = run;
    // Not vLLM fields: the chain from sent to stored, so a lost request shows.
    summary["issued_requests"] = std::max(0L, streamed.issued - o.warmup);
    summary["stored_requests"] = writer.committed();
    if (const auto error = writer.error()) {
        summary["store_error"] = *error;
        std::cerr << "tierscope load: storing requests failed (" << *error << "); "
                  << writer.committed() << " of " << accumulator.requests() << " requests are in "
                  << dbPath << "; no request was sent after the failure was seen\n";
    }
    const char* status = writer.error()           ? "failed"
                         : CancelOnSignal::flag() ? "cancelled"
                                                  : "completed";
    bool recorded = true;
    try {
        store.finishRun(run, clock.nowNs(), status, summary.dump());
        recorded = recording.finish();
    } catch (const std::exception& e) {
        std::cerr << "tierscope load: cannot record the run's end: " << e.what() << "\n";
    }
    printSummary(summary, streamed.openLoop);
    if (summary.contains("validity"))
        for (const auto& c : summary["validity"])
            std::printf("validity: %s %s: %s\n", c.value("check", "").c_str(),
                        c.value("status", "").c_str(), c.value("detail", "").c_str());
    std::printf("stored as session %lld, run %lld in %s\n", static_cast<long long>(session),
                static_cast<long long>(run), dbPath.c_str());
    if (const auto line = recording.summary(); !line.empty())
        std::printf("%s\n", line.c_str());
    if (!o.out.empty()) {
        try {
            ReportFile::write(o.out, summary.dump(2) + "\n");
        } catch (const std::runtime_error& e) {
            std::cerr << "tierscope load: " << e.what() << "\n";
            return kExitCannotWrite;
        }
    }
    if (writer.error() || !recorded)
        return kExitCannotWrite;
    if (summary["completed"].get<long>() == 0) {
        const std::string first =
            accumulator.requests() == 0 ? "no request was sent" : streamed.firstError;
        std::cerr << "tierscope load: no request succeeded; first error: " << first << "\n";
        return kExitFailure;
    }
    return kExitOk;
}

} // namespace tierscope
