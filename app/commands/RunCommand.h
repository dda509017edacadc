#pragma once

#include "app/common/GlobalOptions.h"
#include "experiments/ExperimentRunner.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope run PLAN.toml`: an A/B experiment, headless.
class RunCommand {
  public:
    struct Options {
        std::string plan;
        bool dryRun = false;
        bool calibrate = false;  // the A/A calibration only
        int calibrationRuns = 0; // 0: the plan's calibration_runs
        std::string format = "text";
        std::string report;
        std::string target; // ssh://host: run there, progress streamed here
        std::string attach; // with target: follow this job again instead of starting one
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);

  private:
    static int finish(const GlobalOptions& global, const Options& o, const ExperimentPlan& plan,
                      const ExperimentRunner::Result& result,
                      std::vector<ComparisonResult>& comparisons, bool calibration);
};

} // namespace tierscope
