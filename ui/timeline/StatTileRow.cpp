#include "ui/timeline/StatTileRow.h"

#include "ui/timeline/UnitScale.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>

namespace tierscope {

namespace {

constexpr int kGap = 6;
constexpr int kPad = 6;
constexpr int kSparkHeight = 18;

QString formatted(ChartCatalog::Unit unit, double v) {
    return UnitScale::choose(unit, v).format(v);
}

} // namespace

StatTileRow::StatTileRow(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize StatTileRow::sizeHint() const {
    const QFontMetrics fm(font());
    // Title, value (1.4x), detail and the sparkline.
    const int h =
        kPad * 2 + fm.height() * 2 + static_cast<int>(fm.height() * 1.5) + kSparkHeight + 4;
    return {800, h};
}

QSize StatTileRow::minimumSizeHint() const {
    return {200, sizeHint().height()};
}

void StatTileRow::setTiles(std::vector<StatTiles::Tile> tiles) {
    m_tiles = std::move(tiles);
    update();
}

const StatTiles::Tile* StatTileRow::find(const std::string& id) const {
    for (const auto& t : m_tiles)
        if (t.id == id)
            return &t;
    return nullptr;
}

QString StatTileRow::valueOf(const StatTiles::Tile& tile) {
    if (!tile.text.empty())
        return QString::fromStdString(tile.text);
    if (!tile.value)
        return QStringLiteral("-");
    return formatted(tile.unit, *tile.value);
}

// The pair's other half leads the detail line ("p99 2.40 s"): beside the value it did not fit
// a tile of a 1280 px window.
QString StatTileRow::detailOf(const StatTiles::Tile& tile) {
    if (!tile.absentReason.empty())
        return QString::fromStdString(tile.absentReason);
    QString text = QString::fromStdString(tile.detail);
    if (tile.second)
        text = QString::fromStdString(tile.secondLabel) + " " + formatted(tile.unit, *tile.second) +
               (text.isEmpty() ? "" : ", " + text);
    return text;
}

QString StatTileRow::valueText(const std::string& id) const {
    const auto* t = find(id);
    return t ? valueOf(*t) : QString();
}

QString StatTileRow::detailText(const std::string& id) const {
    const auto* t = find(id);
    return t ? detailOf(*t) : QString();
}

QRect StatTileRow::tileRect(int index) const {
    const int n = std::max<int>(1, static_cast<int>(m_tiles.size()));
    const int w = (width() - kGap * (n + 1)) / n;
    return {kGap + index * (w + kGap), 2, w, height() - 4};
}

void StatTileRow::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QPalette pal = palette();
    QFont titleFont = font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 0.9);
    QFont valueFont = font();
    valueFont.setPointSizeF(valueFont.pointSizeF() * 1.4);
    valueFont.setBold(true);
    const QFontMetrics tfm(titleFont), vfm(valueFont);
    QColor dim = pal.color(QPalette::WindowText);
    dim.setAlphaF(0.6);
    for (std::size_t i = 0; i < m_tiles.size(); ++i) {
        const auto& tile = m_tiles[i];
        const QRect r = tileRect(static_cast<int>(i));
        p.setPen(pal.color(QPalette::Mid));
        p.setBrush(pal.color(QPalette::Base));
        p.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        const QRect in = r.adjusted(kPad, kPad, -kPad, -kPad);
        int y = in.top();
        p.setFont(titleFont);
        p.setPen(dim);
        p.drawText(QRect(in.left(), y, in.width(), tfm.height()), Qt::AlignLeft,
                   tfm.elidedText(QString::fromStdString(tile.title), Qt::ElideRight, in.width()));
        y += tfm.height();
        p.setFont(valueFont);
        p.setPen(tile.color.empty() ? pal.color(QPalette::Text)
                                    : QColor(QString::fromStdString(tile.color)));
        p.drawText(QRect(in.left(), y, in.width(), vfm.height()), Qt::AlignLeft,
                   vfm.elidedText(valueOf(tile), Qt::ElideRight, in.width()));
        y += vfm.height();
        p.setFont(titleFont);
        p.setPen(dim);
        p.drawText(QRect(in.left(), y, in.width(), tfm.height()), Qt::AlignLeft,
                   tfm.elidedText(detailOf(tile), Qt::ElideRight, in.width()));
        // The sparkline, scaled from zero (a rate's dip to half is half the height).
        const QRectF spark(in.left(), in.bottom() - kSparkHeight, in.width(), kSparkHeight);
        double top = 0;
        for (const auto& v : tile.sparkline)
            if (v)
                top = std::max(top, *v);
        if (tile.unit == ChartCatalog::Unit::Percent)
            top = std::max(top, 100.0);
        else if (tile.unit == ChartCatalog::Unit::Ratio)
            top = std::max(top, 1.0);
        if (tile.sparkline.size() < 2 || !(top > 0))
            continue;
        QPainterPath path;
        bool pen = false;
        const double dx = spark.width() / static_cast<double>(tile.sparkline.size() - 1);
        for (std::size_t k = 0; k < tile.sparkline.size(); ++k) {
            const auto& v = tile.sparkline[k];
            if (!v) // bridged, as the charts bridge a gap: never drawn as zero
                continue;
            const QPointF at(spark.left() + dx * static_cast<double>(k),
                             spark.bottom() - spark.height() * (*v / top));
            pen ? path.lineTo(at) : path.moveTo(at);
            pen = true;
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
        p.drawPath(path);
    }
}

bool StatTileRow::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        for (std::size_t i = 0; i < m_tiles.size(); ++i)
            if (tileRect(static_cast<int>(i)).contains(help->pos())) {
                const auto& t = m_tiles[i];
                QToolTip::showText(help->globalPos(),
                                   QString("<b>%1</b>: %2<br>%3")
                                       .arg(QString::fromStdString(t.title).toHtmlEscaped(),
                                            valueOf(t).toHtmlEscaped(),
                                            detailOf(t).toHtmlEscaped()),
                                   this);
                return true;
            }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace tierscope
