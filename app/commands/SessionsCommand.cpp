#include "app/commands/SessionsCommand.h"

#include "app/common/ExitCode.h"
#include "app/common/WorkspaceOpener.h"
#include "core/store/SessionState.h"
#include "core/store/Store.h"
#include "core/util/TerminalText.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tierscope {

CLI::App* SessionsCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand("sessions", "List the recorded sessions of the workspace");
    cmd->add_flag("--json", options.json, "Print JSON instead of a table");
    return cmd;
}

int SessionsCommand::run(const GlobalOptions& global, const Options& options) {
    auto store = WorkspaceOpener::openExisting(global.dbPath());
    nlohmann::json rows = nlohmann::json::array();
    if (!options.json)
        std::printf("%4s  %-20s  %-22s  %-21s  %10s  %7s  %10s\n", "ID", "LABEL", "STORAGE PROFILE",
                    "START (UTC)", "DURATION", "METRICS", "SAMPLES");
    // Labels are whoever wrote the workspace's: no escape sequence of theirs reaches a terminal.
    const bool terminal = isatty(STDOUT_FILENO);
    const auto shown = [terminal](const std::string& text) {
        return terminal ? TerminalText::clean(text) : text;
    };
    const std::int64_t now = WallClock::systemNowNs();
    for (const auto& s : store->sessions()) {
        const auto metricList = store->metrics(s.id);
        const auto metrics = metricList.size();
        const std::string state = SessionState::of(*store, s, metricList, now);
        const auto samples = store->sampleCount(s.id);
        if (options.json) {
            nlohmann::json row = {{"id", s.id},
                                  {"label", s.label},
                                  {"storage_profile", s.storageProfile},
                                  {"host", s.host},
                                  {"start_ns", s.startNs},
                                  {"metrics", metrics},
                                  {"samples", samples},
                                  {"tool_version", s.toolVersion},
                                  {"state", state}};
            row["end_ns"] = s.endNs ? nlohmann::json(*s.endNs) : nlohmann::json(nullptr);
            rows.push_back(row);
            continue;
        }
        const std::string duration =
            s.endNs ? UnitFormat::seconds(static_cast<double>(*s.endNs - s.startNs) / 1e9) : state;
        std::printf("%4lld  %-20.20s  %-22.22s  %-21s  %10s  %7zu  %10s\n",
                    static_cast<long long>(s.id), shown(s.label).c_str(),
                    shown(s.storageProfile).c_str(), UnitFormat::utcTime(s.startNs).c_str(),
                    duration.c_str(), metrics, UnitFormat::count(samples).c_str());
    }
    if (options.json)
        std::cout << rows.dump(2) << "\n";
    return kExitOk;
}

} // namespace tierscope
