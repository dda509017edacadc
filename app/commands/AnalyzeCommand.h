#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace tierscope {

// `tierscope analyze --session N`: the bottleneck of each window and the share of each class;
// with --range, one range's figures per series (RangeStatistics).
class AnalyzeCommand {
  public:
    struct Options {
        long long session = 0;
        std::string window = "10s";
        std::string format = "text";
        std::string range; // "10s..40s": that range's figures instead of the windows
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);

  private:
    static int runRange(const GlobalOptions& global, const Options& options, std::int64_t windowNs);
};

} // namespace tierscope
