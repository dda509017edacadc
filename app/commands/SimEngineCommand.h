#pragma once

#include "app/common/GlobalOptions.h"
#include "simulator/EngineSimulator.h"

#include <CLI/CLI.hpp>

namespace tierscope {

class SimEngineCommand {
  public:
    static CLI::App* attach(CLI::App& parent, EngineSimulator::Options& options);
    static int run(const EngineSimulator::Options& options);
};

} // namespace tierscope
