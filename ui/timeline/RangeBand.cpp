#include "ui/timeline/RangeBand.h"

#include <QBrush>
#include <QChart>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

namespace tierscope {

RangeBand::RangeBand(QChart* chart) : QGraphicsRectItem(chart) {
    // Over the lines but translucent, so the samples it covers stay readable.
    setPen(QPen(QColor(30, 110, 220, 160), 1));
    setBrush(QColor(30, 110, 220, 45));
    setZValue(18); // under the crosshair
    hide();
}

void RangeBand::setRange(double x0, double x1) {
    const bool some = x1 > x0; // false for NaN too
    m_x0 = some ? x0 : 0;
    m_x1 = some ? x1 : 0;
}

void RangeBand::layout(QChart* chart, const QValueAxis* x, QAbstractSeries* series) {
    const double x0 = std::max(m_x0, x->min()), x1 = std::min(m_x1, x->max());
    if (m_x1 <= m_x0 || x1 <= x0) {
        hide();
        return;
    }
    const QRectF plot = chart->plotArea();
    const double left = chart->mapToPosition(QPointF(x0, 0), series).x();
    const double right = chart->mapToPosition(QPointF(x1, 0), series).x();
    setRect(QRectF(QPointF(left, plot.top()), QPointF(right, plot.bottom())));
    show();
}

} // namespace tierscope
