#pragma once

#include "app/commands/ExportCommand.h"

namespace tierscope {

// `tierscope export chart --session N`: the session view, or one of its charts, drawn by the
// GUI's own window off screen and written as the GUI's export writes it, so that a headless
// export and the window's Export give the same picture.
class SessionChartExport {
  public:
    static int run(const GlobalOptions& global, const ExportCommand::Options& options);
    // `export chart A B --chart view`: the GUI's compare view of A and B (verdict, every KPI
    // and gate row, every chart, under a title block naming the arms) as one picture, drawn
    // off screen as its "Save as image" draws it.
    static int compareView(const GlobalOptions& global, const ExportCommand::Options& options);
};

} // namespace tierscope
