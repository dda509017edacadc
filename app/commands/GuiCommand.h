#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope gui` (and `tierscope` alone when a display is available): the desktop window.
class GuiCommand {
  public:
    struct Options {
        long long session = 0;
        std::string range;           // of --session: "10s..40s" since its start
        std::vector<long long> runs; // of --session: selected
        std::string window = "5m";
        bool noRecord = false;
        std::string screenshot; // save a PNG of the window after `after`, then quit
        std::string after = "5s";
        std::vector<std::string> engines;
        std::vector<std::string> compare; // A and B: open the compare view on them
        std::vector<std::string> overlay; // A and B: open the A/B overlay on them
        std::string target;               // ssh://host: watch that server
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const char* argv0, const GlobalOptions& global, const Options& options);
    // Whether a display server is named (X11 or Wayland). `gui` itself also accepts an explicit
    // QT_QPA_PLATFORM (offscreen, for checks); `tierscope` alone does not.
    static bool displayAvailable(bool acceptQtPlatform = false);
};

} // namespace tierscope
