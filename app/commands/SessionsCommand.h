#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>

namespace tierscope {

class SessionsCommand {
  public:
    struct Options {
        bool json = false;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
