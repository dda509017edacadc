#include "ui/compare/OverlayHistogram.h"

#include "ui/compare/OverlayChart.h"
#include "ui/timeline/AxisTicks.h"

#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace tierscope {

OverlayHistogram::OverlayHistogram(const QStringList& sideLabels, bool dark, QWidget* parent)
    : QWidget(parent), m_labels(sideLabels), m_dark(dark) {
    m_chart = new QChart();
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(6, 2, 6, 2));
    m_chart->setTitle(tr("Client TTFT distribution"));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_x = new QLogValueAxis;
    m_x->setBase(10);
    m_x->setLabelFormat("%g");
    m_x->setTitleText(tr("TTFT (ms, log scale)"));
    m_y = new QValueAxis;
    m_y->setLabelFormat("%.0f");
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_y->setTitleText(tr("% of the side's requests"));
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing, true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    setMinimumWidth(300);
}

void OverlayHistogram::setHistogram(const OverlayFrame::Histogram& histogram) {
    m_histogram = histogram;
    m_chart->removeAllSeries();
    m_areas = {};
    const auto& edges = histogram.edgesMs;
    double peak = 0.0;
    for (int side = 0; side < 2; ++side) {
        // A step outline over the shared bins: up at each bin's left edge, across its top,
        // down to the next bin's height at its right edge.
        auto* upper = new QLineSeries;
        const auto& fractions = histogram.fractions[side];
        if (!edges.empty()) {
            *upper << QPointF(edges.front(), 0.0);
            for (std::size_t i = 0; i < fractions.size(); ++i) {
                const double h = fractions[i] * 100.0;
                *upper << QPointF(edges[i], h) << QPointF(edges[i + 1], h);
                peak = std::max(peak, h);
            }
            *upper << QPointF(edges.back(), 0.0);
        }
        auto* area = new QAreaSeries(upper);
        upper->setParent(area); // an area series does not own its outline
        const QColor line = OverlayChart::sideColor(side, m_dark);
        QColor fill = line;
        fill.setAlpha(side == 0 ? 110 : 90); // both show where they overlap
        area->setBrush(fill);
        QPen pen(line);
        pen.setWidthF(1.5);
        area->setPen(pen);
        area->setName(tr("%1: %2 requests").arg(m_labels.value(side)).arg(histogram.total[side]));
        m_chart->addSeries(area);
        area->attachAxis(m_x);
        area->attachAxis(m_y);
        m_areas[side] = area;
    }
    if (!edges.empty())
        m_x->setRange(edges.front(), edges.back());
    // No request: an empty 0-100 % axis, not 0, 0, 0, 1 from a peak of nothing.
    const double top = edges.empty() ? 100.0 : AxisTicks::top(peak, 5);
    m_y->setRange(0.0, top);
    m_y->setTickInterval(AxisTicks::step(top, 5));
    m_y->setLabelFormat(QString("%.%1f").arg(AxisTicks::decimals(AxisTicks::step(top, 5))));
    m_chart->setTitle(edges.empty() ? tr("Client TTFT distribution: no requests with a TTFT")
                                    : tr("Client TTFT distribution"));
}

QList<double> OverlayHistogram::barHeights(int side) const {
    QList<double> out;
    if (side < 0 || side > 1 || !m_areas[side])
        return out;
    const QList<QPointF> points = m_areas[side]->upperSeries()->points();
    // The outline is (left, 0), then each bin's (left, h), (right, h), then (right, 0).
    for (qsizetype i = 1; i + 1 < points.size(); i += 2)
        out << points[i].y();
    return out;
}

} // namespace tierscope
