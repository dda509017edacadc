#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope export csv|report|chart`: a session's samples, or a comparison as a report or
// one of its charts, without the GUI.
class ExportCommand {
  public:
    struct Options {
        std::string what; // the subcommand: csv, report or chart
        std::int64_t session = 0;
        std::string metric = "*";
        std::string out; // empty: stdout
        // report and chart
        std::string a;
        std::string b;
        std::vector<std::string> gates;
        std::vector<std::string> presets;
        std::string format; // report: html|md|json|csv|text; chart: svg|png|pdf
        std::string chart = "ttft-cdf";
        std::string size = "1200x700";
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
