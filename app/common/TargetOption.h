#pragma once

#include "remote/SshSession.h"

#include <memory>
#include <string>
#include <vector>

namespace tierscope {

// `--target local|ssh://[user@]host[:port]` of the commands that can run on a server: parses
// it and opens the SSH connection, printing the one-line reason and setting `exitCode` when
// either fails.
class TargetOption {
  public:
    static constexpr const char* kHelp =
        "Where to run: local (default) or ssh://[user@]host[:port] (your own ssh client, keys "
        "and config; tierscope must be installed on the server)";

    // Whether `text` names a server (anything but empty or "local").
    static bool remote(const std::string& text) { return !text.empty() && text != "local"; }
    // The open connection, or null with the reason printed as "tierscope COMMAND: ...".
    static std::unique_ptr<SshSession> connect(const std::string& text, const char* command,
                                               int& exitCode);

    // main() keeps its argument vector here, so a command run on a server is sent there as
    // the user typed it.
    static void setCommandLine(int argc, char** argv);
    // The arguments from `subcommand` on, without the workstation-only options (--target,
    // --attach, --report and their values), with `plan` (when given) replaced by "{plan}".
    static std::vector<std::string> forwardedArgs(const std::string& subcommand,
                                                  const std::string& plan = {});
    static std::vector<std::string> forwardedArgs(const std::vector<std::string>& argv,
                                                  const std::string& subcommand,
                                                  const std::string& plan);
};

} // namespace tierscope
