#include "ui/compare/OverlayChart.h"

#include "ui/timeline/AxisTicks.h"
#include "ui/timeline/LinePlotItem.h"

#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>

namespace tierscope {

namespace {

constexpr int kChartHeight = 210;
constexpr int kPixelsPerXTick = 90;
constexpr int kYTicks = 4;

} // namespace

QColor OverlayChart::sideColor(int side, bool dark) {
    // ComparisonCharts' kColorA and kColorB: an arm has one colour in every view.
    const QColor color = side == 0 ? QColor(0x1f, 0x77, 0xb4) : QColor(0xe8, 0x71, 0x0a);
    return dark ? color.lighter(side == 0 ? 150 : 115) : color;
}

OverlayChart::OverlayChart(const OverlayFrame::Series& series, const QStringList& sideLabels,
                           bool dark, QWidget* parent)
    : QWidget(parent), m_series(series), m_labels(sideLabels), m_dark(dark) {
    m_chart = new QChart();
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setMargins(QMargins(6, 2, 6, 2));
    m_chart->setTitle(series.key == OverlayFrame::kTtft
                          ? QString::fromStdString(series.chart)
                          : QString::fromStdString(series.chart + ": " + series.name));
    m_chart->legend()->setAlignment(Qt::AlignTop);
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    m_x->setLabelFormat("%.0f");
    m_x->setTitleVisible(false); // the view names the axis once, above the charts
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_y->setLabelFormat("%.4g");
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing, false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    setFixedHeight(kChartHeight);
    connect(m_chart, &QChart::plotAreaChanged, this, [this](const QRectF& area) {
        if (m_plot)
            m_plot->setPlotArea(area);
        applyTimeTicks(static_cast<int>(area.width()));
    });
}

void OverlayChart::setChart(const OverlayFrame::Chart& in, double x0, double x1) {
    delete m_plot;
    m_plot = nullptr;
    m_chart->removeAllSeries();
    m_lines.clear();
    m_legend.clear();
    m_points.clear();
    m_bySide = {};
    // A request's TTFT comes in ms; the axis picks its unit as every timeline chart does.
    const double toRaw = in.dots ? 1e-3 : 1.0;
    double peak = 0.0;
    for (const auto& line : in.lines)
        for (const auto& p : line.points)
            if (!std::isnan(p.y))
                peak = std::max(peak, p.y * toRaw);
    m_scale = UnitScale::choose(m_series.unit, peak);
    for (int side = 0; side < 2; ++side) {
        const QColor color = sideColor(side, m_dark);
        bool named = false;
        auto add = [&](const QString& name) {
            auto* series = new QLineSeries;
            series->setName(name);
            QPen pen(color);
            pen.setWidth(1);
            pen.setCosmetic(true);
            series->setPen(pen);
            m_chart->addSeries(series);
            series->attachAxis(m_x);
            series->attachAxis(m_y);
            m_bySide[side].push_back(m_lines.size());
            m_lines.push_back(series);
            return series;
        };
        for (const auto& line : in.lines) {
            if (line.side != side)
                continue;
            auto* series = add(m_labels.value(side));
            if (named) // one legend entry per side, however many runs it drew
                for (auto* marker : m_chart->legend()->markers(series))
                    marker->setVisible(false);
            else
                m_legend << series->name();
            named = true;
            QList<QPointF> points;
            points.reserve(static_cast<qsizetype>(line.points.size()));
            for (const auto& p : line.points)
                points << QPointF(p.x, p.y * toRaw / m_scale.divisor);
            m_points.push_back(std::move(points));
        }
        if (!named) { // the legend still names the side, and says why it has no line
            m_legend << add(tr("%1 (not recorded)").arg(m_labels.value(side)))->name();
            m_points.emplace_back();
            m_bySide[side].clear(); // counted as no line drawn
        }
    }
    m_plot = new LinePlotItem(m_lines, m_x, m_y, m_chart);
    m_plot->setZValue(10);
    m_plot->setPlotArea(m_chart->plotArea());
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        m_plot->setDots(i, in.dots);
        m_plot->setPoints(i, m_points[i]);
    }
    m_x->setRange(x0, x1 > x0 ? x1 : x0 + 1.0);
    applyTimeTicks(static_cast<int>(m_chart->plotArea().width()));
    const double top = AxisTicks::top(peak / m_scale.divisor, kYTicks);
    m_y->setRange(0.0, top);
    m_y->setTickInterval(AxisTicks::step(top, kYTicks));
    m_y->setTitleText(m_scale.suffix.trimmed());
}

// As many round steps as there is room for, labelled with the decimals the step needs: a run
// of 1.5 s reads 0.0, 0.5, 1.0, not 0, 0, 1.
void OverlayChart::applyTimeTicks(int plotWidth) {
    const int ticks = std::max(2, plotWidth / kPixelsPerXTick);
    const double step = AxisTicks::step(m_x->max() - m_x->min(), ticks);
    m_x->setTickInterval(step);
    m_x->setLabelFormat(QString("%.%1f").arg(AxisTicks::decimals(step)));
}

int OverlayChart::lineCount(int side) const {
    return side == 0 || side == 1 ? static_cast<int>(m_bySide[side].size()) : 0;
}

QList<QPointF> OverlayChart::points(int side, int index) const {
    if (index < 0 || index >= lineCount(side))
        return {};
    return m_points[m_bySide[side][static_cast<std::size_t>(index)]];
}

QStringList OverlayChart::legendNames() const {
    return m_legend;
}

QString OverlayChart::timeLabelFormat() const {
    return m_x->labelFormat();
}

double OverlayChart::xMin() const {
    return m_x->min();
}

double OverlayChart::xMax() const {
    return m_x->max();
}

} // namespace tierscope
