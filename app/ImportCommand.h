#pragma once

#include "app/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

class ImportCommand {
  public:
    struct Options {
        std::string file;
        std::string storageProfile;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
