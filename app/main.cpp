#include "app/AgentCommand.h"
#include "app/AnalyzeCommand.h"
#include "app/CancelOnSignal.h"
#include "app/CompareCommand.h"
#include "app/DevicesCommand.h"
#include "app/ExitCode.h"
#include "app/ExportCommand.h"
#include "app/GlobalOptions.h"
#include "app/GuiCommand.h"
#include "app/ImportCommand.h"
#include "app/JobCommand.h"
#include "app/LoadCommand.h"
#include "app/PullCommand.h"
#include "app/RecordCommand.h"
#include "app/RunCommand.h"
#include "app/SessionsCommand.h"
#include "app/SimEngineCommand.h"
#include "app/SnapshotCommand.h"
#include "app/StorageCommand.h"
#include "app/StreamCommand.h"
#include "app/TargetOption.h"
#include "core/util/Logging.h"
#include "core/store/StoreError.h"
#include "core/util/Version.h"

#include <csignal>
#include <iostream>
using namespace tierscope;

namespace {

constexpr const char* kNoSubcommandHint =
    "tierscope: no subcommand given, and no display for the GUI (DISPLAY and WAYLAND_DISPLAY\n"
    "are unset). Record headless instead:\n"
    "  tierscope record --duration 30s      record this machine for 30 s, then print a summary\n"
    "  tierscope record                     record until Ctrl-C\n"
    "  tierscope sessions                   list recorded sessions\n"
    "Run `tierscope --help` for every command.\n";

int dispatch(CLI::App& app, const GlobalOptions& global, const RecordCommand::Options& record,
             const SessionsCommand::Options& sessions, const DevicesCommand::Options& devices,
             const ExportCommand::Options& exports, const EngineSimulator::Options& simulator,
             const LoadCommand::Options& load, const ImportCommand::Options& imports,
             const StorageCommand::Options& storage, const GuiCommand::Options& gui,
             const CompareCommand::Options& compare, const RunCommand::Options& runPlan,
             const AnalyzeCommand::Options& analyze, const char* argv0) {
    if (app.got_subcommand("record"))
        return RecordCommand::run(global, record);
    if (app.got_subcommand("sessions"))
        return SessionsCommand::run(global, sessions);
    if (app.got_subcommand("devices"))
        return DevicesCommand::run(global, devices);
    if (app.got_subcommand("export"))
        return ExportCommand::run(global, exports);
    if (app.got_subcommand("import"))
        return ImportCommand::run(global, imports);
    if (app.got_subcommand("load"))
        return LoadCommand::run(global, load);
    if (app.got_subcommand("analyze"))
        return AnalyzeCommand::run(global, analyze);
    if (app.got_subcommand("run"))
        return RunCommand::run(global, runPlan);
    if (app.got_subcommand("compare"))
        return CompareCommand::run(global, compare);
    if (app.got_subcommand("gui"))
        return GuiCommand::run(argv0, global, gui);
    if (app.got_subcommand("storage"))
        return StorageCommand::run(global, storage);
    if (app.got_subcommand("sim-engine"))
        return SimEngineCommand::run(simulator);
    if (GuiCommand::displayAvailable())
        return GuiCommand::run(argv0, global, gui);
    std::cerr << kNoSubcommandHint;
    return kExitUsage;
}

// The commands that run until stopped, and stop cleanly on SIGINT and SIGTERM by polling
// CancelOnSignal::flag().
bool stopsOnSignal(const CLI::App& app) {
    for (const char* name : {"record", "agent", "sim-engine", "load", "run", "storage", "gui"})
        if (app.got_subcommand(name))
            return true;
    return app.get_subcommands().empty(); // the GUI, or the hint
}

} // namespace

int main(int argc, char** argv) {
    // First of all: a signal that arrives during start-up is kept until the command polls it.
    CancelOnSignal stop;
    // A file-size limit (RLIMIT_FSIZE) must fail the write, not kill the process: the writer
    // then stops with a clear error and everything committed stays.
    std::signal(SIGXFSZ, SIG_IGN);
    CLI::App app{"tierscope: a performance observatory for LLM inference storage tiers.\n"
                 "Records GPU, NVMe/NVMe-oF, host and engine metrics into an SQLite workspace.",
                 "tierscope"};
    app.set_version_flag("--version", kToolVersion);
    app.footer(
        "Exit codes: 0 ok, 1 internal error, 2 usage, 3 not a tierscope database, "
        "4 newer schema, 5 cannot write, 6 not found, 7 database I/O error, 8 not enough free "
        "space, 9 refused (not tierscope's file), 10 storage I/O error, 11 a gate failed, "
        "12 a gate inconclusive, 13 comparison invalid (a run's validity check failed), "
        "14 the server named by --target cannot be reached or used.");
    GlobalOptions global;
    app.add_option("--db", global.db,
                   "Workspace database (default: $XDG_DATA_HOME/tierscope/tierscope.db)")
        ->configurable(false);
    app.add_option("--log-level", global.logLevel, "trace, debug, info, warn, error or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

    RecordCommand::Options record;
    SessionsCommand::Options sessions;
    DevicesCommand::Options devices;
    ExportCommand::Options exports;
    RecordCommand::attach(app, record);
    SessionsCommand::attach(app, sessions);
    DevicesCommand::attach(app, devices);
    ExportCommand::attach(app, exports);
    EngineSimulator::Options simulator;
    simulator.port = 8000;
    SimEngineCommand::attach(app, simulator);
    LoadCommand::Options load;
    LoadCommand::attach(app, load);
    ImportCommand::Options imports;
    ImportCommand::attach(app, imports);
    StorageCommand::Options storage;
    StorageCommand::attach(app, storage);
    GuiCommand::Options gui;
    GuiCommand::attach(app, gui);
    CompareCommand::Options compare;
    CompareCommand::attach(app, compare);
    RunCommand::Options runPlan;
    RunCommand::attach(app, runPlan);
    AnalyzeCommand::Options analyze;
    AnalyzeCommand::attach(app, analyze);
    AgentCommand::Options agent;
    AgentCommand::attach(app, agent);
    StreamCommand::Options stream;
    StreamCommand::attach(app, stream);
    JobCommand::Options job;
    JobCommand::attach(app, job);
    SnapshotCommand::Options snapshot;
    SnapshotCommand::attach(app, snapshot);
    PullCommand::Options pull;
    PullCommand::attach(app, pull);

    TargetOption::setCommandLine(argc, argv);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? kExitOk : kExitUsage;
    }
    Logging::toStderr(global.logLevel);
    if (!stopsOnSignal(app))
        stop.passOn(); // quick commands end by the signal, as before

    try {
        if (app.got_subcommand("agent"))
            return AgentCommand::run(agent);
        if (app.got_subcommand("stream"))
            return StreamCommand::run(global, stream);
        if (app.got_subcommand("job"))
            return JobCommand::run(global, job);
        if (app.got_subcommand("snapshot"))
            return SnapshotCommand::run(global, snapshot);
        if (app.got_subcommand("pull"))
            return PullCommand::run(global, pull);
        return dispatch(app, global, record, sessions, devices, exports, simulator, load, imports,
                        storage, gui, compare, runPlan, analyze, argv[0]);
    } catch (const StoreError& e) {
        std::cerr << "tierscope: " << e.what() << "\n";
        return e.exitCode();
    } catch (const std::exception& e) {
        std::cerr << "tierscope: internal error: " << e.what() << "\n";
        return kExitFailure;
    }
}
