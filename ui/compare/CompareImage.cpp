#include "ui/compare/CompareImage.h"

#include "core/compare/ComparisonResult.h"

#include <QFontInfo>
#include <QHeaderView>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <algorithm>

namespace tierscope {

namespace {

std::string nameOf(const QColor& c) {
    return c.name().toStdString();
}

// Header, every row and the frame: what the table holds, whatever part of it is in view.
int allRows(const QTableWidget* table) {
    int h = table->horizontalHeader()->height() + 2 * table->frameWidth();
    for (int row = 0; row < table->rowCount(); ++row)
        h += table->rowHeight(row);
    if (table->horizontalScrollBar()->isVisible())
        h += table->horizontalScrollBar()->height();
    return h;
}

} // namespace

bool CompareImage::isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

SvgChart::Style CompareImage::chartStyle(const QWidget* widget) {
    const QPalette& p = widget->palette();
    SvgChart::Style s = isDark(p) ? SvgChart::Style::dark() : SvgChart::Style::light();
    s.background = nameOf(p.color(QPalette::Base));
    s.text = nameOf(p.color(QPalette::Text));
    s.whisker = s.text;
    s.fontPx = QFontInfo(widget->font()).pixelSize();
    return s;
}

QSize CompareImage::chartSize(const QTabWidget* tabs) {
    if (!tabs->isVisible())
        return {900, 480};
    const int bar = tabs->tabBar()->isVisible() ? tabs->tabBar()->height() : 0;
    return {std::max(400, tabs->width() - 8), std::max(240, tabs->height() - bar - 8)};
}

ViewExporter::Title CompareImage::title(const ComparisonResult& in) {
    ViewExporter::Title t;
    t.heading = QObject::tr("A/B comparison");
    t.lines << QObject::tr("A: %1").arg(QString::fromStdString(in.labelA))
            << QObject::tr("B: %1").arg(QString::fromStdString(in.labelB));
    QStringList hosts;
    for (const auto& h : in.hosts)
        hosts << QString::fromStdString(h);
    t.lines << QObject::tr("hosts: %1")
                   .arg(hosts.isEmpty() ? QObject::tr("not recorded") : hosts.join(", "));
    t.lines << QObject::tr("compared %1 by tierscope %2")
                   .arg(QString::fromStdString(in.generatedUtc),
                        QString::fromStdString(in.toolVersion));
    return t;
}

QByteArray CompareImage::compose(const ComparisonResult& in, const std::vector<QWidget*>& widgets,
                                 const QPalette& palette, const QFont& font, QSize* size) {
    std::vector<ViewExporter::Piece> pieces;
    struct Was {
        QWidget* widget;
        QRect geometry;
        int maximumHeight;
    };
    std::vector<Was> restore;
    int width = 0;
    for (auto* w : widgets) {
        if (!w || w->isHidden())
            continue;
        // A table shows its rows inside a pane that scrolls: drawn at its whole height for
        // the picture, then put back before anything is laid out again.
        if (auto* table = qobject_cast<QTableWidget*>(w); table && allRows(table) > w->height()) {
            restore.push_back({w, w->geometry(), w->maximumHeight()});
            w->setMaximumHeight(std::max(w->maximumHeight(), allRows(table)));
            w->resize(w->width(), allRows(table));
        }
        pieces.push_back({w, {}, {}, {}});
        width = std::max(width, w->width());
    }
    for (const auto& chart : in.charts) {
        const QByteArray svg = QByteArray::fromStdString(chart.svg);
        const QSize own = QSvgRenderer(svg).defaultSize();
        if (own.isEmpty())
            continue;
        pieces.push_back({nullptr, {}, svg, ViewExporter::scaled(own, std::max(width, 400))});
    }
    QByteArray out = ViewExporter::compose(title(in), pieces, palette, font, size);
    for (const auto& was : restore) {
        was.widget->setMaximumHeight(was.maximumHeight);
        was.widget->setGeometry(was.geometry);
    }
    return out;
}

} // namespace tierscope
