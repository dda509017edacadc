#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope analyze --session N`: the bottleneck of each window and the share of each class.
class AnalyzeCommand {
  public:
    struct Options {
        long long session = 0;
        std::string window = "10s";
        std::string format = "text";
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
