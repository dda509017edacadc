#pragma once

#include "ui/Settings.h"

#include <QPalette>

namespace tierscope {

// The whole application's colours for the chosen theme: every window, dock, table and dialog,
// not the chart panels alone. System keeps the platform's palette as it was at the first call;
// Light and Dark set a palette of their own whatever the platform's is.
class AppPalette {
  public:
    // Applies the theme to the application; true when the result is dark.
    static bool apply(Settings::Theme theme);
    static QPalette dark();
    static QPalette light();
    static bool isDark(const QPalette& palette);
};

} // namespace tierscope
