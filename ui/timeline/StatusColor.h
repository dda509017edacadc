#pragma once

#include <QColor>
#include <QPalette>

namespace tierscope {

// The colours that say good, bad, caution, a neutral change or nothing, in both themes: as text
// on a palette's base (lighter shades on a dark base, where the light theme's #c62828 red read
// at a contrast of 2.3) and as the fill of a badge under white text.
class StatusColor {
  public:
    enum class Kind { Good, Bad, Caution, Changed, Muted };
    // Readable on palette.base(): a WCAG contrast of 4.5 at least.
    static QColor text(Kind kind, const QPalette& palette);
    // Under white text, in either theme.
    static QColor fill(Kind kind);
    // WCAG 2's contrast ratio, from 1 (the same) to 21 (black on white).
    static double contrast(const QColor& a, const QColor& b);
};

} // namespace tierscope
