#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope job start|follow|cancel|output`: what a workstation's `run --target` and
// `storage run --target` use on the server; the jobs themselves are remote/JobHost's.
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
