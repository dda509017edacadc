#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope export csv|report|chart`: a session's samples, a comparison as a report or one of
// its charts, or a session's view or one of its charts, without a display.
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
        std::string chart;  // empty: ttft-cdf of a comparison, the whole view of a session
        std::string size = "1200x700";
        std::string theme = "light"; // of a session's chart or the compare view
        int dpi = 96;                // PNG pixels (and a PDF's raster) per 96 logical pixels
    };
    // "1200x700" as pixels, from 200x150 to 10000x10000; absent when it is not that.
    static std::optional<std::pair<int, int>> sizeOf(const std::string& text);
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
