#pragma once

#include "app/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace tierscope {

class ExportCommand {
  public:
    struct Options {
        std::int64_t session = 0;
        std::string metric = "*";
        std::string out; // empty: stdout
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
