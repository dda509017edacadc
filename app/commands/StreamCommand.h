#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope stream`: what a workstation's `--target ssh://...` runs on the server. Records
// this machine into this machine's workspace, as `record` does, and writes what it records to
// stdout as versioned JSON lines (RemoteStreamWriter), with a heartbeat each second. Ends
// cleanly, session closed, on end of stdin (the workstation stopped or went away), a write
// error, --duration or a signal.
class StreamCommand {
  public:
    struct Options {
        std::string interval = "1s";
        std::string duration;
        std::string label;
        std::string storageProfile;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
