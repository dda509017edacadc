#pragma once

#include "app/commands/AgentCommand.h"
#include "app/commands/AnalyzeCommand.h"
#include "app/commands/CompareCommand.h"
#include "app/commands/DevicesCommand.h"
#include "app/commands/ExportCommand.h"
#include "app/commands/GuiCommand.h"
#include "app/commands/ImportCommand.h"
#include "app/commands/JobCommand.h"
#include "app/commands/LoadCommand.h"
#include "app/commands/PullCommand.h"
#include "app/commands/RecordCommand.h"
#include "app/commands/RunCommand.h"
#include "app/commands/SessionsCommand.h"
#include "app/commands/SimEngineCommand.h"
#include "app/commands/SnapshotCommand.h"
#include "app/commands/StorageCommand.h"
#include "app/commands/StreamCommand.h"
#include "app/commands/SweepCommand.h"
#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

class CancelOnSignal;

// The whole command line: every command's options bound to one CLI11 app. Tests and the
// generators of completions and the man page read the same app that parses, so they cannot
// drift from it.
class CommandLine {
  public:
    CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // Parses, runs the chosen command and returns the process's exit status.
    // With `stop`, the signal handler main() installed first: commands that do not poll it
    // get the signal handed on once parsing has named the command.
    int run(int argc, char** argv, CancelOnSignal* stop = nullptr);

    CLI::App& app() { return m_app; }
    const GlobalOptions& global() const { return m_global; }

  private:
    int dispatch(const char* argv0);
    bool stopsOnSignal() const;

    CLI::App m_app;
    GlobalOptions m_global;
    RecordCommand::Options m_record;
    SessionsCommand::Options m_sessions;
    DevicesCommand::Options m_devices;
    ExportCommand::Options m_exports;
    EngineSimulator::Options m_simulator;
    LoadCommand::Options m_load;
    SweepCommand::Options m_sweep;
    ImportCommand::Options m_imports;
    StorageCommand::Options m_storage;
    GuiCommand::Options m_gui;
    CompareCommand::Options m_compare;
    RunCommand::Options m_runPlan;
    AnalyzeCommand::Options m_analyze;
    AgentCommand::Options m_agent;
    StreamCommand::Options m_stream;
    JobCommand::Options m_job;
    SnapshotCommand::Options m_snapshot;
    PullCommand::Options m_pull;
    std::string m_generate;
    std::string m_generateOut;
};

} // namespace tierscope
