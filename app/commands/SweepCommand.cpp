#include "app/commands/SweepCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/compare/RunKpis.h"
#include "core/compare/SloBound.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/util/DurationParser.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "experiments/LoadSweep.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

namespace tierscope {

CLI::App* SweepCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "sweep", "Run one load at several request rates or concurrencies, repeated and "
                 "interleaved, and report each point's throughput and latency with run-level "
                 "95 % intervals; with --slo, the highest rate (or concurrency) at which the "
                 "SLOs hold");
    cmd->add_option("--url", o.url, "Server base URL (http://host:port) or a full /v1/... endpoint")
        ->required();
    cmd->add_option("--model", o.model, "Model name to request")->required();
    cmd->add_option("--api", o.api, "completions or chat")
        ->check(CLI::IsMember({"completions", "chat"}))
        ->capture_default_str();
    auto* rates = cmd->add_option("--rates", o.rates,
                                  "Open loop: the request rates to sweep, e.g. 1,2,4,8 (req/s, "
                                  "gamma arrivals; TTFT counts from the scheduled send)")
                      ->delimiter(',')
                      ->check(CLI::PositiveNumber);
    auto* conc = cmd->add_option("--concurrency", o.concurrency,
                                 "Closed loop: the concurrencies to sweep, e.g. 1,4,16,64")
                     ->delimiter(',')
                     ->check(CLI::PositiveNumber);
    rates->excludes(conc);
    cmd->add_option("--repetitions", o.repetitions,
                    "Runs per point, interleaved across the points (repetition 1 of every "
                    "point, then repetition 2, ...)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    cmd->add_option("--burstiness", o.burstiness, "Gamma shape under --rates; 1 = Poisson")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    auto* requests = cmd->add_option("--requests", o.requests, "Measured requests per run")
                         ->check(CLI::PositiveNumber);
    auto* duration =
        cmd->add_option("--duration", o.duration, "Stop issuing after this long, per run (30s)");
    requests->excludes(duration);
    cmd->add_option("--dataset", o.dataset, "synthetic or shared-prefix")
        ->check(CLI::IsMember({"synthetic", "shared-prefix"}))
        ->capture_default_str();
    cmd->add_option("--input-len", o.inputLen, "Synthetic prompt length in words: N or MIN-MAX")
        ->capture_default_str();
    cmd->add_option("--output-len", o.outputLen, "max_tokens per request")->capture_default_str();
    cmd->add_flag("--ignore-eos", o.ignoreEos,
                  "Send ignore_eos: true, so every output is --output-len tokens long");
    cmd->add_option("--extra-body", o.extraBody, "A JSON object merged into every request body");
    cmd->add_option("--users", o.users, "shared-prefix: conversations")->capture_default_str();
    cmd->add_option("--system-tokens", o.systemTokens, "shared-prefix: system prompt (words)")
        ->capture_default_str();
    cmd->add_option("--rounds", o.rounds, "shared-prefix: rounds per conversation")
        ->capture_default_str();
    cmd->add_option("--question-tokens", o.questionTokens, "shared-prefix: question (words)")
        ->capture_default_str();
    cmd->add_option("--seed", o.seed, "Seed for prompts and arrivals; repetition r uses seed + r")
        ->capture_default_str();
    cmd->add_option("--goodput", o.goodput,
                    "SLOs for goodput, e.g. \"ttft:500 tpot:50 e2el:5000\" (ms)");
    cmd->add_option("--slo", o.slos,
                    "An SLO on a run-level KPI, e.g. \"ttft_p99<=2s\" or \"tpot_p99<=100ms\" "
                    "(repeatable): search for the highest point where all hold, i.e. where the "
                    "upper end of each KPI's 95 % run-level interval is within its bound");
    cmd->add_option("--warmup", o.warmup,
                    "Requests sent once before the grid, at its lowest point, and stored as a "
                    "warm-up run no point counts (a freshly started engine's first requests are "
                    "slow)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    cmd->add_option("--bisect-steps", o.bisectSteps,
                    "With --slo: bisection probes between the last point that holds and the "
                    "first that fails")
        ->capture_default_str()
        ->check(CLI::Range(0, 20));
    cmd->add_option("--experiment", o.experiment,
                    "Experiment name of the runs; each point is an arm (\"rate 4\", \"c16\"), "
                    "so `compare arm:EXPERIMENT/ARM` reads them")
        ->capture_default_str();
    cmd->add_option("--format", o.format, "text or json")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    cmd->add_option("--out", o.out, "Write the report here instead of standard output");
    cmd->add_option("--chart", o.chart.path,
                    "Also draw throughput against latency: each point with its 95 % intervals "
                    "on both axes, hollow where the SLOs are not shown to hold, and the SLO "
                    "line; FILE.svg, FILE.png or FILE.pdf");
    cmd->add_option("--chart-size", o.chart.size, "--chart's pixels, WIDTHxHEIGHT")
        ->capture_default_str();
    cmd->add_option("--chart-x", o.chart.x,
                    "--chart's x axis: output_throughput (default) or request_throughput, "
                    "any KPI of the report");
    cmd->add_option("--chart-y", o.chart.y,
                    "--chart's y axis: a latency KPI such as ttft_p99 (default: the one an "
                    "--slo bounds, else ttft_p99)");
    cmd->add_option("--label", o.label, "Session label");
    cmd->add_option("--storage-profile", o.storageProfile, "Storage configuration under test");
    LoadRecording::attach(*cmd, o.recording);
    cmd->add_option("--token-env", o.tokenEnv, "Environment variable holding a bearer token");
    cmd->add_flag("--insecure", o.insecure, "Do not verify TLS certificates (warns)");
    cmd->add_option("--request-timeout", o.requestTimeout, "Give up on one request after this long")
        ->capture_default_str();
    cmd->footer("Each run is stored as a run of --experiment, its arm the point, its repetition "
                "numbered from 1. A point's figures are the geometric means of its runs' values "
                "(the mean where a run measured zero) with Student's t-interval over the runs, "
                "the scale `compare` uses. An SLO holds at a point when the end of the 95 % "
                "interval nearer the bound is within it (the upper end for <=), so the capacity "
                "reported is one the runs defend; the search needs --repetitions 2 or more.\n"
                "Exit status: 0 when the sweep ran (whatever the SLOs say), 1 when no request of "
                "a run succeeded, 2 for a usage error.");
    return cmd;
}

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

std::optional<std::string> generator(const SweepCommand::Options& o, LoadGenerator::Options& g) {
    g.url = o.url;
    g.model = o.model;
    g.api = o.api;
    g.burstiness = o.burstiness;
    g.requests = o.requests;
    g.tokenEnvVar = o.tokenEnv;
    g.insecureTls = o.insecure;
    g.ignoreEos = o.ignoreEos;
    if (!o.extraBody.empty()) {
        g.extraBody = nlohmann::json::parse(o.extraBody, nullptr, false);
        if (g.extraBody.is_discarded())
            return "--extra-body is not JSON: " + o.extraBody;
        if (const auto why = LoadGenerator::checkExtraBody(g.extraBody))
            return "--extra-body: " + *why;
    }
    if (!o.duration.empty()) {
        const auto d = DurationParser::parse(o.duration);
        if (!d || d->count() <= 0)
            return "--duration must be a duration such as 30s or 5m";
        g.duration = *d;
    }
    const auto timeout = DurationParser::parse(o.requestTimeout);
    if (!timeout || timeout->count() <= 0)
        return "--request-timeout must be a duration such as 60s";
    g.requestTimeout = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout);
    return std::nullopt;
}

// The usage error, or nothing with `s` filled.
std::optional<std::string> setUp(const SweepCommand::Options& o, LoadSweep::Options& s) {
    if (!LoadGenerator::httpUrl(o.url))
        return "--url must be an http:// or https:// URL, not " + LoadGenerator::redacted(o.url);
    if (auto error = LoadRecording::check(o.recording))
        return error;
    if (o.rates.empty() == o.concurrency.empty())
        return "give --rates R1,R2,... (open loop) or --concurrency C1,C2,... (closed loop)";
    s.mode = o.rates.empty() ? LoadSweep::Mode::Concurrency : LoadSweep::Mode::Rate;
    s.points.clear();
    for (const double r : o.rates)
        s.points.push_back(r);
    for (const int c : o.concurrency)
        s.points.push_back(c);
    if (std::set<double>(s.points.begin(), s.points.end()).size() != s.points.size())
        return "a point is given twice";
    if (o.requests <= 0 && o.duration.empty())
        return "give --requests K or --duration D (per run)";
    if (o.outputLen < 1)
        return "--output-len must be 1 or more";
    if (auto error = generator(o, s.generator))
        return error;
    if (!o.goodput.empty() && !(s.goodput = LoadSummary::parseSlo(o.goodput)))
        return "--goodput takes ttft:MS tpot:MS e2el:MS";
    for (const auto& text : o.slos) {
        std::string error;
        const auto slo = SloBound::parse(text, error);
        if (!slo)
            return "--slo: " + error;
        s.slos.push_back(*slo);
    }
    std::vector<std::string> kpis = LoadSweep::reported();
    for (const auto& slo : s.slos)
        kpis.push_back(slo.kpi);
    if (auto error = SweepChart::check(o.chart, kpis, s.points.size(), !s.slos.empty()))
        return error;
    if (!s.slos.empty() && o.repetitions < 2)
        return "--slo needs --repetitions 2 or more: an SLO holds on the upper end of a "
               "run-level interval, which one run does not have";
    s.repetitions = o.repetitions;
    s.bisectSteps = o.bisectSteps;
    s.warmupRequests = o.warmup;
    s.experiment = o.experiment;
    auto& load = s.load;
    load.dataset = o.dataset;
    load.outputLen = o.outputLen;
    load.users = o.users;
    load.systemTokens = o.systemTokens;
    load.rounds = o.rounds;
    load.questionTokens = o.questionTokens;
    load.seed = o.seed;
    load.count = o.requests > 0 ? o.requests : 1000;
    if (!parseRange(o.inputLen, load.inputMin, load.inputMax))
        return "--input-len takes N or MIN-MAX";
    try {
        (void)load.prompts(); // sizes checked now, not after the first point
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    s.params = {{"url", LoadGenerator::redacted(o.url)},
                {"model", o.model},
                {"api", o.api},
                {"burstiness", o.burstiness},
                {"requests", o.requests},
                {"duration", o.duration},
                {"dataset", o.dataset},
                {"input_len", o.inputLen},
                {"output_len", o.outputLen},
                {"sweep", o.experiment}};
    if (o.ignoreEos)
        s.params["ignore_eos"] = true;
    // Stored with every run, so `compare` of two sweeps judges their points on the same SLOs
    // and draws the SLO line (SweepCapacity reads them from the runs, as a plan's sweep has).
    if (!s.slos.empty()) {
        s.params["slo"] = nlohmann::json::array();
        for (const auto& slo : s.slos)
            s.params["slo"].push_back(slo.text);
    }
    if (!o.extraBody.empty())
        s.params["extra_body"] = s.generator.extraBody;
    return std::nullopt;
}

std::string figure(const nlohmann::json& v, const std::string& unit) {
    return v.is_number() ? UnitFormat::kpi(v.get<double>(), unit) : "n/a";
}

std::string bound(const nlohmann::json& v, bool rate) {
    char text[48];
    std::snprintf(text, sizeof text, rate ? "%g req/s" : "%g", v.get<double>());
    return text;
}

// "max rate at SLO: 6.5 req/s (holds at 6.5, fails at 7)", or why the grid did not reach it.
std::string capacityLine(const nlohmann::json& report) {
    const bool rate = report["mode"] == "rate";
    const auto& c = report[rate ? "max_rate_at_slo" : "max_concurrency_at_slo"];
    std::string out = rate ? "max rate at SLO: " : "max concurrency at SLO: ";
    if (c["reached"].get<bool>())
        return out + bound(c["holds_at"], rate) + " (holds at " + bound(c["holds_at"], false) +
               ", fails at " + bound(c["fails_at"], false) + ")";
    if (c["holds_at"].is_null())
        return out + "not reached within the grid: the SLOs fail at the lowest point, " +
               bound(c["fails_at"], rate);
    return out + "not reached within the grid: the SLOs hold at the highest point, " +
           bound(c["holds_at"], rate) + ", so the capacity is above it";
}

std::string text(const nlohmann::json& report) {
    std::string out = "Sweep \"" + report["experiment"].get<std::string>() + "\", session " +
                      std::to_string(report["session_id"].get<long long>()) + ", " +
                      std::to_string(report["repetitions"].get<int>()) +
                      " repetitions per point, interleaved\n";
    for (const auto& p : report["points"]) {
        std::string runs;
        for (const auto& r : p["runs"])
            runs += (runs.empty() ? "" : ", ") + std::to_string(r.get<long long>());
        out += "\n" + p["label"].get<std::string>() + " (" + p["probe"].get<std::string>() +
               "; runs " + runs + ")";
        if (p.contains("holds") && p["holds"].is_boolean())
            out += p["holds"].get<bool>() ? ": SLOs hold" : ": SLOs do not hold";
        out += "\n";
        for (const auto& [name, k] : p["kpis"].items()) {
            const auto* d = RunKpis::find(name);
            const std::string unit = k["unit"];
            char line[256];
            const std::string interval = k["lo"].is_number() ? "[" + figure(k["lo"], unit) + ", " +
                                                                   figure(k["hi"], unit) + "]"
                                                             : "(no interval)";
            std::snprintf(line, sizeof line, "  %-16s %14s  %-30s %s of %zu runs\n",
                          d ? d->displayName.c_str() : name.c_str(),
                          figure(k["estimate"], unit).c_str(), interval.c_str(),
                          k["mean"].get<std::string>().c_str(), k["runs"].get<std::size_t>());
            out += line;
        }
        for (const auto& s : p.value("slo", nlohmann::json::array()))
            out += "  SLO " + s["slo"].get<std::string>() + ": " +
                   (s["holds"].get<bool>() ? "holds" : "does not hold") + " (" +
                   (s["judged_end"] == "hi" ? "upper" : "lower") + " end " +
                   figure(s["judged"], s["unit"]) + ", bound " + figure(s["threshold"], s["unit"]) +
                   ")\n";
    }
    if (report.contains("slo"))
        out += "\n" + capacityLine(report) + "\n";
    if (report["cancelled"].get<bool>())
        out += "cancelled: the sweep stopped before its last run\n";
    return out;
}

} // namespace

int SweepCommand::run(const GlobalOptions& global, const Options& o) {
    LoadSweep::Options options;
    if (const auto error = setUp(o, options)) {
        std::cerr << "tierscope sweep: " << *error << "\n";
        return kExitUsage;
    }
    if (o.insecure)
        std::cerr << "tierscope sweep: warning: TLS certificate verification is OFF\n";
    const std::string dbPath = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dbPath).parent_path(), ec);
    Store store(dbPath, Store::Mode::ReadWrite);
    LoadRecording recording(o.recording,
                            {dbPath, o.label.empty() ? "sweep " + o.model : o.label,
                             o.storageProfile, o.url, o.tokenEnv, o.insecure},
                            store);
    LoadSweep::Hooks hooks;
    hooks.beforeRun = [&] { recording.settle(); };
    hooks.say = [](const std::string& line) { std::cerr << "tierscope sweep: " << line << "\n"; };
    hooks.cancel = &CancelOnSignal::flag();
    LoadSweep sweep(options, store, recording.sessionId(), recording.clock(), hooks);
    auto report = sweep.run();
    if (!CancelOnSignal::flag())
        recording.settle();
    const bool recorded = recording.finish();
    report["tool_version"] = kToolVersion;
    const std::string rendered = o.format == "json" ? report.dump(2) + "\n" : text(report);
    if (o.out.empty()) {
        std::cout << rendered;
    } else {
        try {
            ReportFile::write(o.out, rendered);
        } catch (const std::runtime_error& e) {
            std::cerr << "tierscope sweep: " << e.what() << "\n";
            return kExitCannotWrite;
        }
    }
    if (!o.chart.path.empty()) {
        std::string why;
        const auto curve = SweepChart::curveOf(store, recording.sessionId(), o.experiment, why);
        if (!curve) {
            std::cerr << "tierscope sweep: --chart: not drawn: " << why << "\n";
            return kExitFailure;
        }
        if (const auto error = SweepChart::write(*curve, o.chart); !error.empty()) {
            std::cerr << "tierscope sweep: --chart: " << error << "\n";
            return kExitCannotWrite;
        }
        std::cerr << "tierscope sweep: wrote the chart to " << o.chart.path << "\n";
    }
    if (!recorded)
        return kExitCannotWrite;
    for (const auto& p : report["points"])
        if (p["measured_runs"].get<int>() > 0 && !p["kpis"].contains("ttft_p50")) {
            std::cerr << "tierscope sweep: no request succeeded at "
                      << p["label"].get<std::string>() << "\n";
            return kExitFailure;
        }
    return kExitOk;
}

} // namespace tierscope
