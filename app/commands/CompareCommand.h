#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope compare A B`: KPIs of B against A with bootstrap intervals, and gate verdicts.
class CompareCommand {
  public:
    struct Options {
        std::string a;
        std::string b;
        std::vector<std::string> gates;
        std::vector<std::string> presets;
        std::string format = "text";
        std::string out;
        std::int64_t noiseFloor = 0; // an A/A calibration's session; 0: the one the runs name
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
