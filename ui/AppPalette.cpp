#include "ui/AppPalette.h"

#include <QApplication>
#include <QStyle>

namespace tierscope {

namespace {

// The platform's palette before tierscope changed anything: what "System" means.
const QPalette& platform() {
    static const QPalette palette = QApplication::palette();
    return palette;
}

} // namespace

bool AppPalette::isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

QPalette AppPalette::dark() {
    QPalette p;
    const QColor window(0x20, 0x21, 0x24), base(0x17, 0x18, 0x1a), text(0xe8, 0xea, 0xed),
        button(0x2b, 0x2d, 0x31), disabled(0x80, 0x84, 0x8a), highlight(0x3d, 0x6b, 0xb3);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, button);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Link, QColor(0x8a, 0xb4, 0xf8));
    p.setColor(QPalette::LinkVisited, QColor(0xc5, 0x8a, 0xf9));
    p.setColor(QPalette::Light, QColor(0x3c, 0x3f, 0x44));
    p.setColor(QPalette::Midlight, QColor(0x33, 0x36, 0x3a));
    p.setColor(QPalette::Mid, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::Dark, QColor(0x12, 0x13, 0x15));
    p.setColor(QPalette::Shadow, Qt::black);
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x44, 0x47, 0x4d));
    return p;
}

QPalette AppPalette::light() {
    // The style's own light palette where the platform is dark, else the platform's.
    return isDark(platform()) ? QApplication::style()->standardPalette() : platform();
}

bool AppPalette::apply(Settings::Theme theme) {
    platform(); // captured before the first change
    QPalette p;
    switch (theme) {
    case Settings::Theme::System:
        p = platform();
        break;
    case Settings::Theme::Light:
        p = light();
        break;
    case Settings::Theme::Dark:
        p = dark();
        break;
    }
    QApplication::setPalette(p);
    return isDark(p);
}

} // namespace tierscope
