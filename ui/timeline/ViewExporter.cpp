#include "ui/timeline/ViewExporter.h"

#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QBuffer>
#include <QFontMetrics>
#include <QObject>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QWidget>
#include <algorithm>

namespace tierscope {

namespace {

constexpr int kPad = 10; // around the title block's text

QFont headingFont(const QFont& font) {
    QFont bold = font;
    bold.setBold(true);
    bold.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 1.3 : 12);
    return bold;
}

QSize sizeOf(const ViewExporter::Piece& p) {
    if (!p.widget)
        return p.size;
    return p.region.isEmpty() ? p.widget->size() : p.region.size();
}

} // namespace

int ViewExporter::titleHeight(const Title& title, const QFont& font) {
    if (title.heading.isEmpty() && title.lines.isEmpty())
        return 0;
    const QFontMetrics big(headingFont(font)), small(font);
    return kPad + big.height() + small.lineSpacing() * static_cast<int>(title.lines.size()) + kPad;
}

ViewExporter::Title ViewExporter::sessionTitle(const SessionInfo& info, std::int64_t fromNs,
                                               std::int64_t toNs) {
    Title t;
    t.heading = QObject::tr("Session %1").arg(info.id);
    if (!info.label.empty())
        t.heading += ": " + QString::fromStdString(info.label);
    if (!info.storageProfile.empty())
        t.heading += " [" + QString::fromStdString(info.storageProfile) + "]";
    t.lines << QObject::tr("%1 to %2 (UTC)")
                   .arg(QString::fromStdString(UnitFormat::utcTime(fromNs)),
                        QString::fromStdString(UnitFormat::utcTime(toNs)));
    t.lines << QObject::tr("host: %1")
                   .arg(info.host.empty() ? QObject::tr("not recorded")
                                          : QString::fromStdString(info.host));
    QString version = QObject::tr("drawn by tierscope %1").arg(kToolVersion);
    if (!info.toolVersion.empty() && info.toolVersion != kToolVersion)
        version += QObject::tr(", recorded by %1").arg(QString::fromStdString(info.toolVersion));
    t.lines << version;
    return t;
}

int ViewExporter::heightOf(const std::vector<Piece>& pieces) {
    int h = 0;
    for (const auto& p : pieces)
        h += sizeOf(p).height();
    return h;
}

QSize ViewExporter::scaled(QSize natural, int width) {
    if (width <= 0 || natural.width() <= 0 || width == natural.width())
        return natural;
    const double k = static_cast<double>(width) / natural.width();
    return {width, std::max(1, static_cast<int>(natural.height() * k + 0.5))};
}

QByteArray ViewExporter::compose(const Title& title, const std::vector<Piece>& pieces,
                                 const QPalette& palette, const QFont& font, QSize* size) {
    const int top = titleHeight(title, font);
    int width = 0;
    for (const auto& p : pieces)
        width = std::max(width, sizeOf(p).width());
    width = std::max(width, 200);
    const QSize whole(width, top + heightOf(pieces));
    if (size)
        *size = whole;
    QByteArray out;
    QBuffer buffer(&out);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(whole);
    svg.setViewBox(QRect(QPoint(0, 0), whole));
    svg.setTitle(title.heading);
    svg.setDescription(title.lines.join("; "));
    QPainter painter(&svg);
    painter.fillRect(QRect(QPoint(0, 0), whole), palette.window());
    if (top > 0) {
        const QFont big = headingFont(font);
        painter.setPen(palette.windowText().color());
        painter.setFont(big);
        int y = kPad + QFontMetrics(big).ascent();
        painter.drawText(kPad, y, title.heading);
        painter.setFont(font);
        y += QFontMetrics(big).descent() + QFontMetrics(font).ascent();
        for (const auto& line : title.lines) {
            painter.drawText(kPad, y, line);
            y += QFontMetrics(font).lineSpacing();
        }
        painter.setPen(palette.mid().color());
        painter.drawLine(0, top - 1, width, top - 1);
    }
    int y = top;
    for (const auto& p : pieces) {
        const QSize s = sizeOf(p);
        if (p.widget) {
            painter.save();
            painter.translate(0, y);
            p.widget->render(&painter, QPoint(), p.region.isEmpty() ? QRegion() : QRegion(p.region),
                             QWidget::DrawChildren | QWidget::DrawWindowBackground);
            painter.restore();
        } else {
            QSvgRenderer renderer(p.svg);
            renderer.setAspectRatioMode(Qt::KeepAspectRatio);
            renderer.render(&painter, QRectF(QPointF(0, y), QSizeF(s)));
        }
        y += s.height();
    }
    painter.end();
    return out;
}

std::vector<ViewExporter::Piece> ViewExporter::piecesOf(TimelineView* view) {
    std::vector<Piece> out;
    auto* scroll = view->findChild<QScrollArea*>(QString(), Qt::FindDirectChildrenOnly);
    if (!scroll || !scroll->widget()) {
        out.push_back({view, {}, {}, {}});
        return out;
    }
    // A chart scrolled out of view keeps older data until it is scrolled to (the view spares
    // the work): visit each, then go back to where the user was.
    QScrollBar* bar = scroll->verticalScrollBar();
    const int at = bar->value();
    for (auto* chart : view->charts())
        scroll->ensureWidgetVisible(chart, 0, 0);
    bar->setValue(at);
    if (const int above = scroll->geometry().top(); above > 0)
        out.push_back({view, QRect(0, 0, view->width(), above), {}, {}});
    QWidget* inner = scroll->widget();
    // The charts' own height: the stretch under them fills a viewport taller than they are.
    const int charts = std::min(inner->height(), inner->sizeHint().height());
    out.push_back({inner, QRect(0, 0, inner->width(), charts), {}, {}});
    return out;
}

} // namespace tierscope
