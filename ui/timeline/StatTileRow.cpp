#include "ui/timeline/StatTileRow.h"

#include "ui/timeline/UnitScale.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>

namespace tierscope {

namespace {

constexpr int kTileGap = 6;
constexpr int kPad = 6;
constexpr int kSparkHeight = 18;
// A detail wraps past about this many characters, in at most this many lines.
constexpr int kDetailWrapChars = 24;
constexpr int kMaxDetailLines = 4;
constexpr int kUnbounded = 1 << 20;

QString formatted(ChartCatalog::Unit unit, double v) {
    return UnitScale::choose(unit, v).format(v);
}

} // namespace

StatTileRow::StatTileRow(QWidget* parent) : QWidget(parent) {
    QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

QFont StatTileRow::titleFont() const {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.9);
    return f;
}

QFont StatTileRow::valueFont() const {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 1.4);
    f.setBold(true);
    return f;
}

int StatTileRow::fixedHeight() const {
    return kPad * 2 + QFontMetrics(titleFont()).height() + QFontMetrics(valueFont()).height() +
           kSparkHeight + 2;
}

int StatTileRow::detailHeight(const StatTiles::Tile& tile, int innerWidth) const {
    const QFontMetrics fm(titleFont());
    const int wrapped = fm.boundingRect(QRect(0, 0, std::max(1, innerWidth), kUnbounded),
                                        Qt::TextWordWrap, detailOf(tile))
                            .height();
    return std::clamp(wrapped, fm.height(), fm.height() * kMaxDetailLines);
}

int StatTileRow::Grid::height() const {
    int h = 4;
    for (const int row : rowHeights)
        h += row;
    return h + kTileGap * std::max(0, static_cast<int>(rowHeights.size()) - 1);
}

// As many columns as the widest tile's text allows (a detail counted up to its wrap width),
// then balanced: 7 tiles that fit 5 to a row go 4 and 3.
StatTileRow::Grid StatTileRow::gridFor(int width) const {
    Grid g;
    const int n = std::max<int>(1, static_cast<int>(m_tiles.size()));
    const QFontMetrics tfm(titleFont()), vfm(valueFont());
    int need = 0;
    for (const auto& t : m_tiles)
        need = std::max({need, tfm.horizontalAdvance(QString::fromStdString(t.title)),
                         vfm.horizontalAdvance(valueOf(t)),
                         std::min(tfm.horizontalAdvance(detailOf(t)),
                                  tfm.averageCharWidth() * kDetailWrapChars)});
    need += 2 * kPad + 2;
    g.columns = std::clamp((width - kTileGap) / (need + kTileGap), 1, n);
    const int rows = (n + g.columns - 1) / g.columns;
    g.columns = (n + rows - 1) / rows;
    g.tileWidth = std::max(1, (width - kTileGap * (g.columns + 1)) / g.columns);
    for (int r = 0; r < rows; ++r) {
        int detail = tfm.height();
        for (int i = r * g.columns; i < std::min<int>((r + 1) * g.columns, m_tiles.size()); ++i)
            detail = std::max(
                detail, detailHeight(m_tiles[static_cast<std::size_t>(i)], g.tileWidth - 2 * kPad));
        g.rowHeights.push_back(fixedHeight() + detail);
    }
    return g;
}

int StatTileRow::heightForWidth(int width) const {
    return gridFor(width).height();
}

QSize StatTileRow::sizeHint() const {
    return {800, heightForWidth(width() > 0 ? width() : 800)};
}

QSize StatTileRow::minimumSizeHint() const {
    return {200, fixedHeight() + QFontMetrics(titleFont()).height() + 4};
}

void StatTileRow::setTiles(std::vector<StatTiles::Tile> tiles) {
    const int before = heightForWidth(width());
    m_tiles = std::move(tiles);
    // A new text may need another row (or one less): only then is the layout asked again.
    if (heightForWidth(width()) != before)
        updateGeometry();
    update();
}

int StatTileRow::rowCount() const {
    return static_cast<int>(gridFor(width()).rowHeights.size());
}

bool StatTileRow::elides() const {
    const int inner = gridFor(width()).tileWidth - 2 * kPad;
    const QFontMetrics tfm(titleFont()), vfm(valueFont());
    for (const auto& t : m_tiles) {
        const QRect wrapped = tfm.boundingRect(QRect(0, 0, std::max(1, inner), kUnbounded),
                                               Qt::TextWordWrap, detailOf(t));
        if (tfm.horizontalAdvance(QString::fromStdString(t.title)) > inner ||
            vfm.horizontalAdvance(valueOf(t)) > inner || wrapped.width() > inner ||
            wrapped.height() > detailHeight(t, inner))
            return true;
    }
    return false;
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
    const Grid g = gridFor(width());
    const int row = std::min(index / g.columns, static_cast<int>(g.rowHeights.size()) - 1);
    int y = 2;
    for (int r = 0; r < row; ++r)
        y += g.rowHeights[static_cast<std::size_t>(r)] + kTileGap;
    return {kTileGap + (index % g.columns) * (g.tileWidth + kTileGap), y, g.tileWidth,
            g.rowHeights[static_cast<std::size_t>(std::max(0, row))]};
}

void StatTileRow::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, true);
    const QPalette pal = palette();
    const QFont titleFont = this->titleFont();
    const QFont valueFont = this->valueFont();
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
        p.drawText(QRect(in.left(), y, in.width(), detailHeight(tile, in.width())),
                   Qt::AlignLeft | Qt::TextWordWrap, detailOf(tile));
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
