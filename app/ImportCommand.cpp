#include "app/ImportCommand.h"

#include "app/ExitCode.h"
#include "core/Store.h"
#include "core/Version.h"
#include "core/VllmBenchImport.h"
#include "core/WallClock.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tierscope {

CLI::App* ImportCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand("import", "Import results of other tools into the workspace");
    cmd->require_subcommand(1);
    auto* vllm =
        cmd->add_subcommand("vllm-bench", "A `vllm bench serve --save-result` JSON file (with its "
                                          "per-request arrays when saved with --save-detailed)");
    vllm->add_option("FILE", options.file, "The result JSON")->required();
    vllm->add_option("--storage-profile", options.storageProfile,
                     "Storage configuration the run used");
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
    return cmd;
}

int ImportCommand::run(const GlobalOptions& global, const Options& options) {
    if (options.what == "prometheus")
        return PrometheusSource::importRange(global, options.prometheus);
    std::ifstream in(options.file);
    if (!in) {
        std::cerr << "tierscope import vllm-bench: cannot read " << options.file << "\n";
        return kExitNotFound;
    }
    std::stringstream text;
    text << in.rdbuf();
    VllmBenchImport imported;
    try {
        imported = VllmBenchImport::parse(text.str());
    } catch (const std::exception& e) {
        std::cerr << "tierscope import vllm-bench: " << options.file << ": " << e.what() << "\n";
        return kExitUsage;
    }
    const std::string dbPath = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dbPath).parent_path(), ec);
    Store store(dbPath, Store::Mode::ReadWrite);
    const std::int64_t start = imported.startNs.value_or(WallClock::systemNowNs());
    const double duration = imported.summary.value("duration", 0.0);
    const std::int64_t end = start + static_cast<std::int64_t>(duration * 1e9);
    const std::string label =
        "vllm bench " + (imported.label.empty() ? imported.model : imported.label);
    const std::int64_t session =
        store.createSession({0, label, options.storageProfile, "imported", start, end,
                             "imported from " + options.file, "vllm-bench", kToolVersion});
    const std::int64_t run = store.createRun(session, "vllm-bench", imported.params.dump(), start);
    store.addRequests(run, imported.requests);
    store.finishRun(run, end, "imported", imported.summary.dump());
    std::cout << "imported " << options.file << " as session " << session << ", run " << run << " ("
              << imported.summary.value("completed", 0) << " completed, "
              << imported.requests.size() << " request rows)\n";
    return kExitOk;
}

} // namespace tierscope
