#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>

namespace tierscope {

class DevicesCommand {
  public:
    struct Options {
        bool json = false;
        std::int64_t session = 0; // 0: discover this machine now
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
