#pragma once

#include <QString>

class QTableWidget;
class QWidget;

namespace tierscope {

struct ComparisonResult;

// The compare view's last tab: every validity check, cache reset and populate phase of the
// measured runs, pass and warn as well as fail, with their numbers.
class CheckTable {
  public:
    // The table (owned by `parent`) and, in `title`, its tab's text: "Checks (1 fail, 1 warn,
    // 3 pass)", or "Checks (none)" where the runs carry none.
    static QTableWidget* build(const ComparisonResult& in, QWidget* parent, QString* title);
};

} // namespace tierscope
