#include "app/CommandLine.h"

#include "app/BuildInfo.h"
#include "app/ManPage.h"
#include "app/ShellCompletion.h"
#include "app/commands/SimEngineCommand.h"
#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/TargetOption.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/store/StoreError.h"
#include "core/util/Logging.h"
#include "core/util/Version.h"

#include <fstream>
#include <functional>
#include <iostream>

namespace tierscope {

namespace {

constexpr const char* kNoSubcommandHint =
    "tierscope: no subcommand given, and no display for the GUI (DISPLAY and WAYLAND_DISPLAY\n"
    "are unset). Record headless instead:\n"
    "  tierscope record --duration 30s      record this machine for 30 s, then print a summary\n"
    "  tierscope record                     record until Ctrl-C\n"
    "  tierscope sessions                   list recorded sessions\n"
    "Run `tierscope --help` for every command.\n";

constexpr const char* kGlobalFooter =
    "Global options (--db FILE, --log-level LEVEL) go before or after the command; "
    "`tierscope --help` lists them.";

void forEachSubcommand(CLI::App& app, const std::function<void(CLI::App&)>& visit) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        visit(*sub);
        forEachSubcommand(*sub, visit);
    }
}

int writeGenerated(const CLI::App& app, const std::string& what, const std::string& out) {
    std::ofstream file(out);
    if (!file) {
        std::cerr << "tierscope generate: cannot write " << out << "\n";
        return kExitCannotWrite;
    }
    if (what == "bash")
        file << ShellCompletion::bash(app);
    else if (what == "zsh")
        file << ShellCompletion::zsh(app);
    else
        file << ManPage::render(app, kToolVersion);
    file.close();
    if (!file) {
        std::cerr << "tierscope generate: cannot write " << out << "\n";
        return kExitCannotWrite;
    }
    return kExitOk;
}

} // namespace

CommandLine::CommandLine()
    : m_app{"tierscope: a performance observatory for LLM inference storage tiers.\n"
            "Records GPU, NVMe/NVMe-oF, host and engine metrics into an SQLite workspace.",
            "tierscope"} {
    // Inherited by every subcommand created below: an option a subcommand does not know is
    // looked up in its parents, so the global options work after the command too.
    m_app.fallthrough();
    m_app.require_subcommand(0, 1);
    m_app.set_version_flag(
        "--version", [] { return BuildInfo::versionText(); },
        "Print the version and the build (libraries, compiler) and exit");
    m_app.footer(
        "Exit codes: 0 ok, 1 internal error, 2 usage, 3 not a tierscope database, "
        "4 newer schema, 5 cannot write, 6 not found, 7 database I/O error, 8 not enough free "
        "space, 9 refused (not tierscope's file), 10 storage I/O error, 11 a gate failed, "
        "12 a gate undecided, 13 comparison invalid (a run's validity check failed), "
        "14 the server named by --target cannot be reached or used.");
    m_app
        .add_option("--db", m_global.db,
                    "Workspace database (default: $XDG_DATA_HOME/tierscope/tierscope.db)")
        ->configurable(false)
        ->type_name("FILE");
    m_app.add_option("--log-level", m_global.logLevel, "trace, debug, info, warn, error or off")
        ->capture_default_str()
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

    RecordCommand::attach(m_app, m_record);
    SessionsCommand::attach(m_app, m_sessions);
    DevicesCommand::attach(m_app, m_devices);
    ExportCommand::attach(m_app, m_exports);
    m_simulator.port = 8000;
    SimEngineCommand::attach(m_app, m_simulator);
    LoadCommand::attach(m_app, m_load);
    SweepCommand::attach(m_app, m_sweep);
    ImportCommand::attach(m_app, m_imports);
    StorageCommand::attach(m_app, m_storage);
    GuiCommand::attach(m_app, m_gui);
    CompareCommand::attach(m_app, m_compare);
    RunCommand::attach(m_app, m_runPlan);
    AnalyzeCommand::attach(m_app, m_analyze);
    AgentCommand::attach(m_app, m_agent);
    StreamCommand::attach(m_app, m_stream);
    JobCommand::attach(m_app, m_job);
    SnapshotCommand::attach(m_app, m_snapshot);
    PullCommand::attach(m_app, m_pull);
    // After a command's own footer (exit statuses, the bottleneck rules), never instead of it.
    forEachSubcommand(m_app, [](CLI::App& sub) {
        const std::string own = sub.get_footer();
        sub.footer(own.empty() ? std::string(kGlobalFooter) : own + "\n\n" + kGlobalFooter);
    });

    // For the build: completions and the man page come from this very app (hidden: group "").
    auto* generate = m_app.add_subcommand(
        "generate", "Write the bash or zsh completion or the man page of this command line");
    generate->group("");
    generate->add_option("what", m_generate, "bash, zsh or man")
        ->required()
        ->check(CLI::IsMember({"bash", "zsh", "man"}));
    generate->add_option("--out", m_generateOut, "File to write")->required();
}

int CommandLine::run(int argc, char** argv, CancelOnSignal* stop) {
    TargetOption::setCommandLine(argc, argv);
    try {
        m_app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = m_app.exit(e);
        return rc == 0 ? kExitOk : kExitUsage;
    }
    Logging::toStderr(m_global.logLevel);
    if (stop && !stopsOnSignal())
        stop->passOn(); // quick commands end by the signal, as before

    try {
        // A user's engine catalog that does not read stops here, not in a collector later.
        EngineMetricCatalog::active();
    } catch (const std::invalid_argument& e) {
        std::cerr << "tierscope: the engine metric catalog does not read: " << e.what() << "\n";
        return kExitUsage;
    }
    try {
        return dispatch(argv[0]);
    } catch (const StoreError& e) {
        std::cerr << "tierscope: " << e.what() << "\n";
        return e.exitCode();
    } catch (const std::exception& e) {
        std::cerr << "tierscope: internal error: " << e.what() << "\n";
        return kExitFailure;
    }
}

// The commands that run until stopped, and stop cleanly on SIGINT and SIGTERM by polling
// CancelOnSignal::flag().
bool CommandLine::stopsOnSignal() const {
    for (const char* name : {"record", "agent", "sim-engine", "load", "sweep", "run", "storage",
                             "gui", "stream", "import", "pull", "snapshot"})
        if (m_app.got_subcommand(name))
            return true;
    return m_app.get_subcommands().empty(); // the GUI, or the hint
}

int CommandLine::dispatch(const char* argv0) {
    if (m_app.got_subcommand("generate"))
        return writeGenerated(m_app, m_generate, m_generateOut);
    if (m_app.got_subcommand("agent"))
        return AgentCommand::run(m_agent);
    if (m_app.got_subcommand("stream"))
        return StreamCommand::run(m_global, m_stream);
    if (m_app.got_subcommand("job"))
        return JobCommand::run(m_global, m_job);
    if (m_app.got_subcommand("snapshot"))
        return SnapshotCommand::run(m_global, m_snapshot);
    if (m_app.got_subcommand("pull"))
        return PullCommand::run(m_global, m_pull);
    if (m_app.got_subcommand("record"))
        return RecordCommand::run(m_global, m_record);
    if (m_app.got_subcommand("sessions"))
        return SessionsCommand::run(m_global, m_sessions);
    if (m_app.got_subcommand("devices"))
        return DevicesCommand::run(m_global, m_devices);
    if (m_app.got_subcommand("export"))
        return ExportCommand::run(m_global, m_exports);
    if (m_app.got_subcommand("import"))
        return ImportCommand::run(m_global, m_imports);
    if (m_app.got_subcommand("load"))
        return LoadCommand::run(m_global, m_load);
    if (m_app.got_subcommand("sweep"))
        return SweepCommand::run(m_global, m_sweep);
    if (m_app.got_subcommand("analyze"))
        return AnalyzeCommand::run(m_global, m_analyze);
    if (m_app.got_subcommand("run"))
        return RunCommand::run(m_global, m_runPlan);
    if (m_app.got_subcommand("compare"))
        return CompareCommand::run(m_global, m_compare);
    if (m_app.got_subcommand("gui"))
        return GuiCommand::run(argv0, m_global, m_gui);
    if (m_app.got_subcommand("storage"))
        return StorageCommand::run(m_global, m_storage);
    if (m_app.got_subcommand("sim-engine"))
        return SimEngineCommand::run(m_simulator);
    if (GuiCommand::displayAvailable())
        return GuiCommand::run(argv0, m_global, m_gui);
    std::cerr << kNoSubcommandHint;
    return kExitUsage;
}

} // namespace tierscope
