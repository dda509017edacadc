#pragma once

#include "app/common/GlobalOptions.h"
#include "app/common/PrometheusSource.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

class Store;
struct RequestRecord;

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
    // A run's request rows, written a few thousand at a time so that a signal stops the
    // import within milliseconds; false when one did (the caller's transaction is not
    // committed).
    static bool addRequests(Store& store, std::int64_t run,
                            const std::vector<RequestRecord>& requests);
};

} // namespace tierscope
