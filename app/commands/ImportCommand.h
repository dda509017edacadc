#pragma once

#include "app/common/GlobalOptions.h"
#include "app/common/PrometheusSource.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

class ImportCommand {
  public:
    struct Options {
        std::string what; // the subcommand
        std::vector<std::string> files;
        std::string storageProfile;
        std::string experiment; // with arm: the results are the repetitions of one arm
        std::string arm;
        PrometheusSource::Options prometheus;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
