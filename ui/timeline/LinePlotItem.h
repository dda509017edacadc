#pragma once

#include <QGraphicsItem>
#include <QList>
#include <QPointF>
#include <vector>

class QLineSeries;
class QValueAxis;

namespace tierscope {

// Draws a chart's lines (or dots) straight onto its plot area with QPainter, in place of QtCharts'
// QLineSeries items. QtCharts rebuilds each series' path and hover shape on every replace(),
// about a microsecond per point, which a live view of 64 series cannot afford at 10 Hz. The
// (empty) QLineSeries stay in the chart for the legend, the pens and visibility.
class LinePlotItem : public QGraphicsItem {
  public:
    LinePlotItem(std::vector<QLineSeries*> series, const QValueAxis* x, const QValueAxis* y,
                 QGraphicsItem* parent);

    // Points in axis units, ascending x, one list per series.
    void setPoints(std::size_t series, QList<QPointF> points);
    void setPlotArea(const QRectF& area);
    // Draws that series as a dot per point (events, such as requests) instead of a line.
    void setDots(std::size_t series, bool dots);
    bool dots(std::size_t series) const;
    // Draws that series as a band filled down to the axis (a stacked chart's part: its points
    // are the part's top edge, the parts below it are drawn over it).
    void setBand(std::size_t series, bool band);
    int pointCount() const;
    // The points of `series` in item coordinates, as the next paint would draw them.
    QPolygonF mapped(std::size_t series) const;

    QRectF boundingRect() const override { return m_area; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  private:
    void drawLine(QPainter* painter, std::size_t series) const;
    void drawDots(QPainter* painter, std::size_t series) const;
    void drawBand(QPainter* painter, std::size_t series) const;

    std::vector<QLineSeries*> m_series;
    std::vector<QList<QPointF>> m_points;
    std::vector<bool> m_dots;
    std::vector<bool> m_bands;
    const QValueAxis* m_x;
    const QValueAxis* m_y;
    QRectF m_area;
};

} // namespace tierscope
