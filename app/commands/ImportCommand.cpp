#include "app/commands/ImportCommand.h"

#include "app/commands/ImportTools.h"
#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/store/SqliteTransaction.h"
#include "core/store/Store.h"
#include "core/store/VllmBenchImport.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

namespace tierscope {

CLI::App* ImportCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand("import", "Import results of other tools into the workspace");
    cmd->require_subcommand(1);
    auto* vllm = cmd->add_subcommand(
        "vllm-bench", "`vllm bench serve --save-result` files (with their per-request arrays when "
                      "saved with --save-detailed), one run per result");
    vllm->add_option("FILE", options.files,
                     "Result files: one JSON result each, or JSON Lines with one result a line")
        ->required();
    vllm->add_option("--storage-profile", options.storageProfile,
                     "Storage configuration the runs used");
    auto* experiment = vllm->add_option("--experiment", options.experiment,
                                        "Store the results as the repetitions of one arm of this "
                                        "experiment (compare them as arm:EXPERIMENT/ARM)");
    vllm->add_option("--arm", options.arm, "The arm's label, with --experiment")->needs(experiment);
    experiment->needs(vllm->get_option("--arm"));
    vllm->footer("Every result becomes a run of one new session; without per-request arrays the "
                 "file's own summary figures (median/p99 TTFT, TPOT, ITL, throughputs, goodput) "
                 "are the run's KPIs.");
    vllm->callback([&options] { options.what = "vllm-bench"; });
    auto& p = options.prometheus;
    auto* prom = cmd->add_subcommand(
        "prometheus", "A time range from a Prometheus server (query_range), through the metric "
                      "templates of resources/prometheus-templates.toml: tierscope agent, "
                      "node_exporter, AMD device-metrics-exporter, dcgm-exporter, vLLM, LMCache");
    prom->add_option("--url", p.url, "The server, e.g. http://127.0.0.1:9090")->required();
    prom->add_option("--start", p.start, "now, -15m, unix seconds or 2026-11-30T11:00:00Z")
        ->required();
    prom->add_option("--end", p.end, "Same forms")->capture_default_str();
    prom->add_option("--step", p.step, "Resolution")->capture_default_str();
    prom->add_option("--timeout", p.timeout,
                     "Per query; a slower server is reported, not waited on")
        ->capture_default_str();
    prom->add_option("--nodes", p.nodes, "Regex on the instance label")->capture_default_str();
    prom->add_option("--templates", p.templates,
                     "TOML file of extra or replacement templates (same format)");
    prom->add_option("--label", p.label, "Session label");
    prom->add_option("--storage-profile", p.storageProfile, "Storage configuration");
    prom->add_flag("-q,--quiet", p.quiet, "No progress and no summary");
    prom->footer("Ranges are split to stay under Prometheus' 11,000 points per series. A query "
                 "that fails is reported and the other series are kept.");
    prom->callback([&options] { options.what = "prometheus"; });
    ImportTools::attach(*cmd, options);
    return cmd;
}

namespace {

constexpr std::size_t kRowsBetweenChecks = 4096; // a signal is seen within a few ms of rows

// The whole file, read once: the parser keeps the figures, not a tree of the text.
std::optional<std::string> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string text;
    in.seekg(0, std::ios::end);
    if (const auto size = in.tellg(); size > 0)
        text.reserve(static_cast<std::size_t>(size));
    in.seekg(0);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad())
        return std::nullopt;
    return text;
}

int interrupted() {
    std::cerr << "tierscope import vllm-bench: interrupted, nothing imported\n";
    return 128 + CancelOnSignal::signalNumber();
}

} // namespace

bool ImportCommand::addRequests(Store& store, std::int64_t run,
                                const std::vector<RequestRecord>& requests) {
    for (std::size_t from = 0; from < requests.size(); from += kRowsBetweenChecks) {
        if (CancelOnSignal::flag())
            return false;
        const auto to = std::min(requests.size(), from + kRowsBetweenChecks);
        store.addRequests(run, {requests.begin() + static_cast<std::ptrdiff_t>(from),
                                requests.begin() + static_cast<std::ptrdiff_t>(to)});
    }
    return true;
}

int ImportCommand::run(const GlobalOptions& global, const Options& options) {
    if (options.what == "prometheus")
        return PrometheusSource::importRange(global, options.prometheus);
    if (options.what == "fio" || options.what == "aiperf" || options.what == "guidellm")
        return ImportTools::run(global, options);
    if (options.arm.find('/') != std::string::npos) {
        std::cerr << "tierscope import vllm-bench: an arm label has no '/'\n";
        return kExitUsage;
    }
    // Every file is read and checked before the workspace is touched: a bad value in the last
    // file stores nothing, so a corrected retry does not duplicate the first ones.
    std::vector<std::pair<std::string, VllmBenchImport>> results;
    for (const auto& file : options.files) {
        const auto text = readFile(file);
        if (!text) {
            std::cerr << "tierscope import vllm-bench: cannot read " << file << "\n";
            return kExitNotFound;
        }
        try {
            for (auto& one : VllmBenchImport::parseAll(*text))
                results.emplace_back(file, std::move(one));
        } catch (const std::exception& e) {
            std::cerr << "tierscope import vllm-bench: " << file << ": " << e.what()
                      << "; nothing imported\n";
            return kExitUsage;
        }
        if (CancelOnSignal::flag())
            return interrupted();
    }
    const std::string dbPath = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dbPath).parent_path(), ec);
    Store store(dbPath, Store::Mode::ReadWrite);
    auto span = [](const VllmBenchImport& r) {
        const std::int64_t start = r.startNs.value_or(WallClock::systemNowNs());
        return std::pair{start,
                         start + static_cast<std::int64_t>(r.summary.value("duration", 0.0) * 1e9)};
    };
    std::int64_t first = span(results.front().second).first, last = first;
    for (const auto& [file, r] : results) {
        first = std::min(first, span(r).first);
        last = std::max(last, span(r).second);
    }
    const auto& head = results.front().second;
    const std::string label = "vllm bench " + (head.label.empty() ? head.model : head.label);
    std::string sources;
    for (const auto& f : options.files)
        sources += (sources.empty() ? "" : ", ") + f;
    // One transaction: a signal, a kill or a full disk leaves the workspace as it was.
    SqliteTransaction transaction(store.db(), SqliteTransaction::Kind::Immediate);
    const std::int64_t session =
        store.createSession({0, label, options.storageProfile, "imported", first, last,
                             "imported from " + sources, "vllm-bench", kToolVersion});
    std::vector<std::string> lines;
    int repetition = 0;
    for (const auto& [file, r] : results) {
        const auto [start, end] = span(r);
        const std::int64_t run = store.createRun(session, "vllm-bench", r.params.dump(), start,
                                                 options.experiment, options.arm, ++repetition);
        if (!addRequests(store, run, r.requests))
            return interrupted();
        store.finishRun(run, end, "imported", r.summary.dump());
        lines.push_back("imported " + file + " as session " + std::to_string(session) + ", run " +
                        std::to_string(run) + " (" +
                        std::to_string(r.summary["completed"].get<std::int64_t>()) +
                        " completed, " + std::to_string(r.requests.size()) + " request rows" +
                        (options.experiment.empty()
                             ? std::string()
                             : ", arm:" + options.experiment + "/" + options.arm) +
                        ")");
    }
    if (CancelOnSignal::flag())
        return interrupted();
    transaction.commit();
    for (const auto& line : lines)
        std::cout << line << "\n";
    return kExitOk;
}

} // namespace tierscope
