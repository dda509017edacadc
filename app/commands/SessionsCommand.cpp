#include "app/commands/SessionsCommand.h"

#include "app/common/ExitCode.h"
#include "app/common/WorkspaceOpener.h"
#include "core/store/Store.h"
#include "core/store/WriterRegistry.h"
#include "core/util/TerminalText.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tierscope {

namespace {

constexpr std::int64_t kRecentNs = 15'000'000'000LL;

// Without a live owner to ask (an older file, a pulled copy, a writer in another container),
// samples arriving (one within 15 s of now) are the only sign of recording.
bool samplesArriving(Store& store, const std::vector<MetricInfo>& metrics, std::int64_t nowNs) {
    for (const auto& m : metrics)
        for (const auto& b : store.readDecimated(m.id, nowNs - kRecentNs, nowNs + kRecentNs, 1))
            if (b.count > 0)
                return true;
    return false;
}

} // namespace

// An open session is "recording" while the process that opened it runs, whether or not its
// samples are recent (an idle or retrying recorder has none, a remote clock may lag ours), and
// "interrupted" once that process ended without closing it (a crash, a kill, a full disk).
std::string SessionsCommand::stateOf(Store& store, const SessionInfo& s,
                                     const std::vector<MetricInfo>& metrics, std::int64_t nowNs) {
    if (s.endNs)
        return "finished";
    switch (WriterRegistry::sessionOwner(store.db(), s.id)) {
    case WriterRegistry::Owner::Alive:
        return "recording";
    case WriterRegistry::Owner::Gone:
        return "interrupted";
    case WriterRegistry::Owner::None:
    case WriterRegistry::Owner::Unknown:
        break;
    }
    return samplesArriving(store, metrics, nowNs) ? "recording" : "interrupted";
}

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
        const std::string state = stateOf(*store, s, metricList, now);
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
