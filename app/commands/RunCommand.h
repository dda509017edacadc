#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope run PLAN.toml`: an A/B experiment, headless.
class RunCommand {
  public:
    struct Options {
        std::string plan;
        bool dryRun = false;
        std::string format = "text";
        std::string report;
        std::string target; // ssh://host: run there, progress streamed here
        std::string attach; // with target: follow this job again instead of starting one
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
