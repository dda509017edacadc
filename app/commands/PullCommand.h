#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope pull ssh://host [--session N | --experiment NAME]`: brings a server's sessions
// (samples, runs, requests, devices, events) into this workspace with new ids and an origin
// label, so compare, export and the GUI work on them offline. Pulling twice adds nothing.
class PullCommand {
  public:
    struct Options {
        std::string target;
        long long session = 0;
        std::string experiment;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
