#include "ui/timeline/StatusColor.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

namespace {

double luminance(const QColor& c) {
    auto channel = [](double v) {
        return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

} // namespace

QColor StatusColor::fill(Kind kind) {
    switch (kind) {
    case Kind::Good:
        return QColor("#2e7d32");
    case Kind::Bad:
        return QColor("#c62828");
    case Kind::Caution:
        return QColor("#a65e00"); // #b26a00 gave white text 4.3
    case Kind::Changed:
        return QColor("#1565c0");
    case Kind::Muted:
        break;
    }
    return QColor("#616161");
}

QColor StatusColor::text(Kind kind, const QPalette& palette) {
    if (palette.color(QPalette::Base).lightness() >= 128)
        return fill(kind);
    switch (kind) {
    case Kind::Good:
        return QColor("#81c784");
    case Kind::Bad:
        return QColor("#ef9a9a");
    case Kind::Caution:
        return QColor("#ffb74d");
    case Kind::Changed:
        return QColor("#90caf9");
    case Kind::Muted:
        break;
    }
    return QColor("#bdbdbd");
}

double StatusColor::contrast(const QColor& a, const QColor& b) {
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace tierscope
