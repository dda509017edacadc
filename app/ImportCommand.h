#pragma once

#include "app/GlobalOptions.h"
#include "app/PrometheusSource.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

class ImportCommand {
  public:
    struct Options {
        std::string what; // the subcommand
        std::string file;
        std::string storageProfile;
        PrometheusSource::Options prometheus;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
