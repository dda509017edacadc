#pragma once

#include "app/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

class RecordCommand {
  public:
    struct Options {
        std::string label;
        std::string storageProfile;
        std::string duration;
        std::string interval = "1s";
        bool quiet = false;
    };

    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
