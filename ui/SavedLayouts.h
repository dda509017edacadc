#pragma once

#include "core/view/ChartLayout.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace tierscope {

// Named chart layouts and the one in use, in QSettings ("layouts/<name>", "layout/current"),
// as JSON. A damaged entry reads as absent, never as half a layout.
class SavedLayouts {
  public:
    static QStringList names();
    static std::optional<ChartLayout> load(const QString& name);
    // False for a name QSettings cannot hold as one key (empty, or with '/' or '\').
    static bool save(const QString& name, const ChartLayout& layout);
    static void remove(const QString& name);
    static ChartLayout current(); // the default layout when none is saved
    static void setCurrent(const ChartLayout& layout);
};

} // namespace tierscope
