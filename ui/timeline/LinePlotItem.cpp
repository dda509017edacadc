#include "ui/timeline/LinePlotItem.h"

#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace tierscope {

LinePlotItem::LinePlotItem(std::vector<QLineSeries*> series, const QValueAxis* x,
                           const QValueAxis* y, QGraphicsItem* parent)
    : QGraphicsItem(parent), m_series(std::move(series)), m_points(m_series.size()),
      m_dots(m_series.size(), false), m_bands(m_series.size(), false), m_x(x), m_y(y) {}

void LinePlotItem::setBand(std::size_t series, bool band) {
    if (series < m_bands.size() && m_bands[series] != band) {
        m_bands[series] = band;
        update();
    }
}

void LinePlotItem::setDots(std::size_t series, bool dots) {
    if (series < m_dots.size() && m_dots[series] != dots) {
        m_dots[series] = dots;
        update();
    }
}

bool LinePlotItem::dots(std::size_t series) const {
    return series < m_dots.size() && m_dots[series];
}

void LinePlotItem::setPoints(std::size_t series, QList<QPointF> points) {
    if (series >= m_points.size())
        return;
    m_points[series] = std::move(points);
    update();
}

void LinePlotItem::setPlotArea(const QRectF& area) {
    if (area == m_area)
        return;
    prepareGeometryChange();
    m_area = area;
}

int LinePlotItem::pointCount() const {
    int n = 0;
    for (const auto& p : m_points)
        n += static_cast<int>(p.size());
    return n;
}

QPolygonF LinePlotItem::mapped(std::size_t series) const {
    QPolygonF out;
    if (series >= m_points.size() || m_area.isEmpty())
        return out;
    const double x0 = m_x->min(), x1 = m_x->max(), y0 = m_y->min(), y1 = m_y->max();
    if (!(x1 > x0) || !(y1 > y0))
        return out;
    const auto& points = m_points[series];
    // Only what lies in the time window, plus one point either side so that a line entering
    // or leaving the plot is drawn up to its edge.
    auto first = std::lower_bound(points.begin(), points.end(), x0,
                                  [](const QPointF& p, double x) { return p.x() < x; });
    auto last = std::upper_bound(first, points.end(), x1,
                                 [](double x, const QPointF& p) { return x < p.x(); });
    if (first != points.begin())
        --first;
    if (last != points.end())
        ++last;
    const double sx = m_area.width() / (x1 - x0);
    const double sy = m_area.height() / (y1 - y0);
    out.reserve(last - first);
    for (auto it = first; it != last; ++it)
        out << QPointF(m_area.left() + (it->x() - x0) * sx, m_area.bottom() - (it->y() - y0) * sy);
    return out;
}

void LinePlotItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->save();
    painter->setClipRect(m_area);
    // Bands from the top of the stack down: each lower part is drawn over the one above it, so
    // every band shows only its own share.
    for (std::size_t i = m_series.size(); i-- > 0;)
        if (m_bands[i])
            drawBand(painter, i);
    for (std::size_t i = 0; i < m_series.size(); ++i)
        if (!m_dots[i])
            drawLine(painter, i);
    // Dots last, the first series on top: "TTFT from the actual send" is the reading, and
    // where the client kept its schedule the scheduled dot lies at the same place.
    for (std::size_t i = m_series.size(); i-- > 0;)
        if (m_dots[i])
            drawDots(painter, i);
    painter->restore();
}

void LinePlotItem::drawLine(QPainter* painter, std::size_t series) const {
    if (!m_series[series]->isVisible())
        return;
    const QPolygonF line = mapped(series);
    if (line.isEmpty())
        return;
    painter->setPen(m_series[series]->pen());
    // A NaN point is a gap in the data (ChartPoints): each run between gaps is its own line.
    qsizetype start = 0;
    for (qsizetype i = 0; i <= line.size(); ++i) {
        if (i < line.size() && !std::isnan(line[i].y()))
            continue;
        const qsizetype n = i - start;
        if (n == 1)
            painter->drawPoint(line[start]);
        else if (n > 1)
            painter->drawPolyline(line.constData() + start, static_cast<int>(n));
        start = i + 1;
    }
}

void LinePlotItem::drawBand(QPainter* painter, std::size_t series) const {
    if (!m_series[series]->isVisible())
        return;
    const QPolygonF line = mapped(series);
    QColor fill = m_series[series]->pen().color();
    fill.setAlpha(150);
    // Each run between gaps is its own band, closed along the axis.
    qsizetype start = 0;
    for (qsizetype i = 0; i <= line.size(); ++i) {
        if (i < line.size() && !std::isnan(line[i].y()))
            continue;
        if (i - start > 1) {
            QPolygonF band(line.begin() + start, line.begin() + i);
            band << QPointF(line[i - 1].x(), m_area.bottom())
                 << QPointF(line[start].x(), m_area.bottom());
            painter->setPen(Qt::NoPen);
            painter->setBrush(fill);
            painter->drawPolygon(band);
        }
        start = i + 1;
    }
}

void LinePlotItem::drawDots(QPainter* painter, std::size_t series) const {
    if (!m_series[series]->isVisible())
        return;
    // 3 px squares: filled rectangles cost less than antialiased circles, and a request stays
    // visible at any zoom.
    const QColor color = m_series[series]->pen().color();
    for (const QPointF& p : mapped(series))
        if (!std::isnan(p.y()))
            painter->fillRect(QRectF(p.x() - 1.5, p.y() - 1.5, 3, 3), color);
}

} // namespace tierscope
