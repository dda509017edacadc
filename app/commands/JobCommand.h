#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope job start|follow|cancel|output`: what a workstation's `run --target` and
// `storage run --target` use on the server. A job is one tierscope command (run or storage
// run) detached from the SSH session, in a process group and session of its own, so a dropped
// connection does not stop it; its progress (stderr), report (stdout) and exit status are
// files under the workspace's jobs/ directory, which `follow` streams as JSON lines from the
// start, so reconnecting shows all of it.
class JobCommand {
  public:
    struct Options {
        std::string action; // start, follow, cancel, output
        std::string id;
        bool planStdin = false; // start: stdin is the plan; "{plan}" in the arguments names it
        bool force = false;     // cancel: SIGKILL the group instead of a clean SIGINT
        std::vector<std::string> args;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
