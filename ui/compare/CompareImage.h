#pragma once

#include "core/report/SvgChart.h"
#include "ui/timeline/ViewExporter.h"

#include <QByteArray>
#include <QSize>
#include <vector>

class QFont;
class QPalette;
class QTabWidget;
class QWidget;

namespace tierscope {

struct ComparisonResult;

// The compare view as one picture (verdict, every KPI and gate row, the shares, every chart,
// under a title block naming the arms), and the look its charts are drawn in.
class CompareImage {
  public:
    // The colours of `widget`'s palette and the pixel size of its font, so the charts sit in
    // the view as its own widgets do: dark on a dark theme, text as large as the interface's
    // at any scale factor.
    static SvgChart::Style chartStyle(const QWidget* widget);
    // As AppPalette::isDark judges the application's theme (that class lies above this one).
    static bool isDark(const QPalette& palette);
    // The logical size a chart shows at in `tabs`; the report's 900x480 before they are shown.
    static QSize chartSize(const QTabWidget* tabs);
    // "A: ... vs B: ...", the hosts, when it was compared and by which version.
    static ViewExporter::Title title(const ComparisonResult& in);
    // `widgets` top to bottom (a table at the height of all its rows, not the rows in view;
    // hidden ones left out), then every chart of `in` at their width.
    static QByteArray compose(const ComparisonResult& in, const std::vector<QWidget*>& widgets,
                              const QPalette& palette, const QFont& font, QSize* size);
};

} // namespace tierscope
