#pragma once

#include <QGraphicsRectItem>

class QAbstractSeries;
class QChart;
class QValueAxis;

namespace tierscope {

// The time range selected on the timeline, drawn over one chart's plot: a translucent band
// from top to bottom, clipped to the time axis' range, so a range partly outside a zoomed
// view shows its visible part.
class RangeBand : public QGraphicsRectItem {
  public:
    explicit RangeBand(QChart* chart);

    // [x0, x1] in the time axis' unit; NaN or an empty range hides it.
    void setRange(double x0, double x1);
    // Placed again after the plot area or the time axis changed.
    void layout(QChart* chart, const QValueAxis* x, QAbstractSeries* series);

  private:
    double m_x0 = 0;
    double m_x1 = 0; // equal to m_x0: none
};

} // namespace tierscope
