#include "app/AnalyzeCommand.h"

#include "app/ExitCode.h"
#include "core/DurationParser.h"
#include "core/SessionAnalysis.h"
#include "core/Store.h"
#include "core/StoreError.h"
#include "core/UnitFormat.h"

#include <iostream>
#include <nlohmann/json.hpp>

namespace tierscope {

CLI::App* AnalyzeCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "analyze",
        "Name the bottleneck of each time window of a session (storage-bound, "
        "GPU-compute-bound, KV-capacity-bound, engine-queueing, idle) with its evidence");
    cmd->add_option("--session", o.session, "Session ID (see `tierscope sessions`)")->required();
    cmd->add_option("--window", o.window, "Window length")->capture_default_str();
    cmd->add_option("--format", o.format, "text or json")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "json"}));
    cmd->footer("Thresholds (defaults): KV cache >= 90 % with requests waiting or preemptions; "
                "storage >= 80 % of its observed ceiling or a device >= 80 % busy while GPUs are "
                "< 60 % busy and TTFT >= 1 s; GPUs >= 85 % busy; >= 1 request waiting.");
    return cmd;
}

int AnalyzeCommand::run(const GlobalOptions& global, const Options& o) {
    const auto window = DurationParser::parse(o.window);
    if (!window || *window < std::chrono::seconds(1)) {
        std::cerr << "tierscope analyze: --window must be a duration of at least 1s\n";
        return kExitUsage;
    }
    Store store(global.dbPath(), Store::Mode::ReadOnly);
    if (!store.session(o.session))
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(o.session));
    const auto result = SessionAnalysis::analyze(store, o.session, window->count());
    if (o.format == "json") {
        nlohmann::json windows = nlohmann::json::array();
        for (const auto& w : result.windows)
            windows.push_back({{"t_ns", w.t0Ns},
                               {"class", BottleneckClassifier::name(w.verdict.cls)},
                               {"evidence", w.verdict.evidence}});
        nlohmann::json shares = nlohmann::json::object();
        for (const auto& [cls, share] : result.shares)
            shares[BottleneckClassifier::name(cls)] = share;
        std::cout << nlohmann::json{{"session", o.session},
                                    {"window_s", static_cast<double>(result.windowNs) / 1e9},
                                    {"windows", windows},
                                    {"shares", shares}}
                         .dump(2)
                  << "\n";
        return kExitOk;
    }
    // Consecutive windows of one class print as one line.
    for (std::size_t i = 0; i < result.windows.size();) {
        std::size_t j = i;
        while (j + 1 < result.windows.size() &&
               result.windows[j + 1].verdict.cls == result.windows[i].verdict.cls)
            ++j;
        const double from =
            static_cast<double>(result.windows[i].t0Ns - result.windows[0].t0Ns) / 1e9;
        const double to = from + static_cast<double>((j - i + 1) * result.windowNs) / 1e9;
        std::printf("%7.0f-%-7.0f s  %-18s %s\n", from, to,
                    BottleneckClassifier::name(result.windows[i].verdict.cls),
                    result.windows[i].verdict.evidence.c_str());
        i = j + 1;
    }
    std::printf("shares:");
    for (const auto& [cls, share] : result.shares)
        std::printf("  %s %.0f %%", BottleneckClassifier::name(cls), share * 100);
    std::printf("\n");
    return kExitOk;
}

} // namespace tierscope
