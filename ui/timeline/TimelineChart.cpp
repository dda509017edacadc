#include "ui/timeline/TimelineChart.h"

#include "ui/timeline/AxisTicks.h"
#include "ui/timeline/ChartAnnotations.h"
#include "ui/timeline/ChartPoints.h"
#include "ui/timeline/LinePlotItem.h"
#include "ui/timeline/RangeBand.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMouseEvent>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <utility>

namespace tierscope {

namespace {

constexpr int kChartHeight = 230;
constexpr int kAbsentHeight = 70;
constexpr int kMargin = 6;
constexpr int kYTicks = 5;          // intervals up the value axis, at most
constexpr int kLabelPadding = 10;   // QtCharts' padding above and below a value label, and a gap
constexpr int kPixelsPerXTick = 90; // room for a label such as "-120" and a gap

// Series colours of their own rather than the chart theme's: QtCharts' dark theme has another
// palette, so nvme0n1 would change colour with the theme. Mid-tone (Tableau 10), readable on a
// light and on a dark background alike.
QColor seriesColor(std::size_t index) {
    static const QColor colors[] = {
        {78, 121, 167}, {242, 142, 43},  {225, 87, 89},   {118, 183, 178}, {89, 161, 79},
        {237, 201, 72}, {176, 122, 161}, {255, 157, 167}, {156, 117, 95},  {186, 176, 172}};
    return colors[index % std::size(colors)];
}

} // namespace

TimelineChart::TimelineChart(const ChartCatalog::Chart& spec, Renderer renderer, bool dark,
                             QWidget* parent)
    : QWidget(parent), m_spec(spec) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    m_chart = new QChart();
    m_chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    m_chart->setTitle(QString::fromStdString(spec.title));
    m_chart->setMargins(QMargins(kMargin, 2, kMargin, 2));
    // Before any other receiver: TimelineView aligns the charts on this signal.
    connect(m_chart, &QChart::plotAreaChanged, this, &TimelineChart::plotAreaChanged);
    m_chart->legend()->setAlignment(Qt::AlignTop); // equal plot widths: one time axis
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_x = new QValueAxis;
    m_y = new QValueAxis;
    // Ticks at multiples of a round step from zero, not at fifths of the range: the range of a
    // live view moves every frame, and fifths of 87 s read 0/22/43/65/87.
    m_x->setTickType(QValueAxis::TicksDynamic);
    m_x->setTickAnchor(0);
    m_y->setTickType(QValueAxis::TicksDynamic);
    m_y->setTickAnchor(0);
    m_x->setLabelFormat("%.0f");
    // The time axis' title is the view's, shown once above the charts: on each chart it took
    // the height a compact chart needs for its tick labels.
    m_x->setTitleVisible(false);
    m_y->setLabelFormat("%.4g");
    m_y->setMin(0);
    m_chart->addAxis(m_x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    for (const auto& s : spec.series) {
        auto* series = new QLineSeries;
        series->setName(QString::fromStdString(s.name));
        series->setUseOpenGL(renderer == Renderer::OpenGl);
        m_chart->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
        // One-pixel cosmetic pens: the themes' 2 px pens are stroked as polygons, which costs
        // several times more per point in the raster engine.
        QPen pen = series->pen();
        pen.setColor(seriesColor(m_series.size()));
        pen.setWidth(1);
        pen.setCosmetic(true);
        if (s.reference)
            pen.setStyle(Qt::DashLine);
        series->setPen(pen);
        // QtCharts' own items cannot drop the line: they mark each point on it.
        series->setPointsVisible(s.dots && renderer != Renderer::Painter);
        m_series.push_back(series);
    }
    if (!isAbsent())
        m_annotations = std::make_unique<ChartAnnotations>(m_chart, m_x, m_series.front());
    if (renderer == Renderer::Painter) {
        m_plot = new LinePlotItem(m_series, m_x, m_y, m_chart);
        m_plot->setZValue(10); // over the grid, under the crosshair
        // A moving crosshair or range band repaints the plot under it: drawn from a pixmap of
        // the lines, which are mapped and stroked again only when their data or axes change.
        m_plot->setCacheMode(QGraphicsItem::DeviceCoordinateCache);
        m_plot->setPlotArea(m_chart->plotArea());
        for (std::size_t i = 0; i < spec.series.size(); ++i) {
            m_plot->setDots(i, spec.series[i].dots);
            m_plot->setBand(i, spec.stacked && spec.series[i].stack > 0);
        }
        connect(m_chart, &QChart::plotAreaChanged, this,
                [this](const QRectF& area) { m_plot->setPlotArea(area); });
    }
    for (auto* marker : m_chart->legend()->markers())
        connect(marker, &QLegendMarker::clicked, this,
                [this, marker] { toggle(qobject_cast<QLineSeries*>(marker->series())); });

    m_view = new QChartView(m_chart);
    m_view->setRenderHint(QPainter::Antialiasing, false);
    m_view->setMouseTracking(true);
    m_view->viewport()->installEventFilter(this);
    m_crossLine = new QGraphicsLineItem(m_chart);
    m_crossLine->setPen(QPen(QColor(128, 128, 128, 200), 1, Qt::DashLine));
    m_crossLine->setZValue(20);
    m_crossLine->hide();
    m_crossText = new QGraphicsSimpleTextItem(m_chart);
    m_crossText->setZValue(21);
    m_crossText->hide();
    m_selection = new RangeBand(m_chart);
    connect(m_chart, &QChart::plotAreaChanged, this, &TimelineChart::layoutSelection);
    // A line of zeros lies on the axis, where it reads as an empty chart: say what it is.
    m_zeroNote = new QGraphicsSimpleTextItem(tr("0 throughout the view"), m_chart);
    m_zeroNote->setZValue(15);
    m_zeroNote->hide();
    m_stack->addWidget(m_view);

    m_absent = new QLabel(this);
    m_absent->setWordWrap(true);
    m_absent->setAlignment(Qt::AlignCenter);
    m_absent->setFrameShape(QFrame::StyledPanel);
    m_absent->setText(
        QString("<b>%1</b><br>%2")
            .arg(QString::fromStdString(spec.title).toHtmlEscaped(),
                 QString::fromStdString(spec.absentReason).toHtmlEscaped().replace("\n", "<br>")));
    m_stack->addWidget(m_absent);
    m_stack->setCurrentWidget(isAbsent() ? static_cast<QWidget*>(m_absent) : m_view);
    int height = isAbsent() ? kAbsentHeight : kChartHeight;
    if (const QStringList all = nodes(); all.size() > 1) {
        // Many machines on one chart are a tangle: pick one, or all.
        m_node = new QComboBox(this);
        m_node->addItem(tr("all nodes"), QString());
        for (const auto& n : all)
            m_node->addItem(n, n);
        auto* row = new QHBoxLayout;
        row->addStretch(1);
        row->addWidget(new QLabel(tr("node:"), this));
        row->addWidget(m_node);
        layout->insertLayout(0, row);
        connect(m_node, &QComboBox::currentIndexChanged, this,
                [this] { selectNode(m_node->currentData().toString()); });
        m_extraHeight = m_node->sizeHint().height() + 2;
    }
    setFixedHeight(height + m_extraHeight);
}

void TimelineChart::setChartHeight(int px) {
    if (!isAbsent() && height() != px + m_extraHeight)
        setFixedHeight(px + m_extraHeight);
}

QStringList TimelineChart::nodes() const {
    QStringList out;
    for (const auto& s : m_spec.series)
        if (!s.node.empty() && !out.contains(QString::fromStdString(s.node)))
            out << QString::fromStdString(s.node);
    out.sort();
    return out;
}

void TimelineChart::selectNode(const QString& node) {
    if (m_node && m_node->currentData().toString() != node)
        m_node->setCurrentIndex(std::max(0, m_node->findData(node)));
    for (std::size_t i = 0; i < m_series.size(); ++i) {
        const bool shown = node.isEmpty() || m_spec.series[i].node == node.toStdString();
        m_series[i]->setVisible(shown);
        for (auto* marker : m_chart->legend()->markers(m_series[i]))
            marker->setVisible(shown);
    }
    if (m_plot)
        m_plot->update();
}

void TimelineChart::toggle(QLineSeries* series) {
    if (!series)
        return;
    showSeries(series, !series->isVisible());
    emit seriesToggled(series->name(), series->isVisible());
}

void TimelineChart::setSeriesShown(const QString& name, bool shown) {
    for (auto* series : m_series)
        if (series->name() == name)
            showSeries(series, shown);
}

void TimelineChart::showSeries(QLineSeries* series, bool shown) {
    series->setVisible(shown);
    // The legend keeps the entry, greyed, so the series can be switched back on.
    for (auto* marker : m_chart->legend()->markers(series)) {
        marker->setVisible(true);
        QColor color = marker->labelBrush().color();
        color.setAlphaF(shown ? 1.0 : 0.4);
        marker->setLabelBrush(color);
    }
    if (m_plot)
        m_plot->update();
}

void TimelineChart::setData(const std::vector<std::vector<Bucket>>& original,
                            std::int64_t originNs) {
    const auto data = m_spec.stacked ? ChartPoints::stacked(m_spec, original) : original;
    m_data = original;
    m_origin = originNs;
    double peak = 0.0;
    bool any = false;
    for (const auto& buckets : data) {
        peak = std::max(peak, ChartPoints::peak(buckets));
        any = any || !buckets.empty();
    }
    m_zeroNote->setVisible(any && peak == 0.0);
    layoutZeroNote();
    const UnitScale scale = UnitScale::choose(m_spec.unit, peak);
    const bool percent =
        m_spec.unit == ChartCatalog::Unit::Percent || m_spec.unit == ChartCatalog::Unit::Ratio;
    m_percentTop = percent && peak / scale.divisor <= 100;
    m_valuePeak = peak / scale.divisor;
    // Axes first, and only when they change: every range change re-maps every point of every
    // series, so setting them after the data would do the work twice.
    applyValueTicks();
    if (scale.suffix != m_scale.suffix)
        m_y->setTitleText(scale.suffix.trimmed());
    m_scale = scale;
    for (std::size_t i = 0; i < m_series.size() && i < data.size(); ++i) {
        auto points = ChartPoints::fromBuckets(data[i], originNs, m_scale.divisor);
        if (m_plot) {
            m_plot->setPoints(i, std::move(points));
        } else {
            // QLineSeries has no gaps: there a gap stays bridged.
            points.removeIf([](const QPointF& p) { return std::isnan(p.y()); });
            m_series[i]->replace(points);
        }
    }
}

void TimelineChart::setTimeRange(double x0, double x1, const QString& axisTitle) {
    if (m_x->min() != x0 || m_x->max() != x1) {
        m_x->setRange(x0, x1);
        applyTimeTicks();
        if (m_plot)
            m_plot->update();
        layoutAnnotations();
        layoutSelection();
    }
    if (m_x->titleText() != axisTitle)
        m_x->setTitleText(axisTitle);
}

// As many round steps as the plot has room for labels; the step only changes when the span or
// the width does, so the labels of a scrolling live axis keep their values.
void TimelineChart::applyTimeTicks() {
    const int width = plotWidth();
    const double step =
        AxisTicks::step(m_x->max() - m_x->min(), std::clamp(width / kPixelsPerXTick, 2, 12));
    if (m_x->tickInterval() != step)
        m_x->setTickInterval(step);
    const QString format = QString("%.%1f").arg(AxisTicks::decimals(step));
    if (m_x->labelFormat() != format)
        m_x->setLabelFormat(format);
}

void TimelineChart::plotAreaChanged() {
    m_laidOutInset = m_leftInset;
    layoutAnnotations();
    applyTimeTicks();
    layoutZeroNote();
    // The value axis' range not from inside this signal: QtCharts emits it while it lays the
    // chart out for a range change, and a range set there sends its axis and its domain
    // setting each other's range until the stack runs out.
    if (!std::exchange(m_valueTicksQueued, true))
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_valueTicksQueued = false;
                applyValueTicks();
            },
            Qt::QueuedConnection);
}

// As many value labels as the plot's height holds: a short chart (a tall legend, a small
// screen) reads 0 / 400 / 800 rather than three "...".
void TimelineChart::applyValueTicks() {
    const double labelPx = QFontMetricsF(m_y->labelsFont()).height() + kLabelPadding;
    const int intervals = AxisTicks::fitting(m_chart->plotArea().height(), labelPx, kYTicks);
    const double top = m_percentTop ? 100.0 : AxisTicks::top(m_valuePeak, intervals);
    const double step = AxisTicks::step(top, intervals);
    if (m_y->max() != top || m_y->min() != 0) {
        m_y->setRange(0, top);
        if (m_plot)
            m_plot->update();
    }
    if (m_y->tickInterval() != step)
        m_y->setTickInterval(step);
}

bool TimelineChart::zeroNoted() const {
    return m_zeroNote->isVisible();
}

double TimelineChart::timeTickStep() const {
    return m_x->tickInterval();
}

QString TimelineChart::timeLabelFormat() const {
    return m_x->labelFormat();
}

double TimelineChart::valueTickStep() const {
    return m_y->tickInterval();
}

double TimelineChart::valueTop() const {
    return m_y->max();
}

QRect TimelineChart::plotRectIn(const QWidget* ancestor) const {
    const QRect plot = m_chart->plotArea().toRect();
    return QRect(m_view->viewport()->mapTo(ancestor, plot.topLeft()), plot.size());
}

void TimelineChart::setLeftInset(int px) {
    if (px == m_leftInset)
        return;
    m_leftInset = px;
    m_chart->setMargins(QMargins(kMargin + px, 2, kMargin, 2));
}

double TimelineChart::naturalPlotLeft() const {
    // The layout applies new margins later: until it has, the plot area still shows the old
    // inset, so that is the one to take off.
    return m_chart->plotArea().left() - m_laidOutInset;
}

int TimelineChart::plotWidth() const {
    const int w = static_cast<int>(m_chart->plotArea().width());
    return w > 10 ? w : std::max(200, width() - 260);
}

int TimelineChart::pointCount() const {
    if (m_plot)
        return m_plot->pointCount();
    int n = 0;
    for (auto* s : m_series)
        n += static_cast<int>(s->count());
    return n;
}

QStringList TimelineChart::legendNames() const {
    QStringList names;
    for (auto* s : m_series)
        names << s->name();
    return names;
}

QString TimelineChart::absentText() const {
    return isAbsent() ? m_absent->text() : QString();
}

QString TimelineChart::crosshairText() const {
    return m_crossText->isVisible() ? m_crossText->text() : QString();
}

bool TimelineChart::seriesVisible(int index) const {
    return index >= 0 && index < static_cast<int>(m_series.size()) && m_series[index]->isVisible();
}

void TimelineChart::setMarkers(const std::vector<Marker>& markers) {
    if (m_annotations)
        m_annotations->setMarkers(markers);
}

void TimelineChart::layoutZeroNote() {
    if (!m_zeroNote)
        return; // the plot area is laid out before the note exists
    m_zeroNote->setBrush(palette().color(QPalette::WindowText));
    const QRectF area = m_chart->plotArea();
    const QRectF text = m_zeroNote->boundingRect();
    m_zeroNote->setPos(area.center().x() - text.width() / 2, area.bottom() - text.height() - 4);
}

void TimelineChart::setSpans(const std::vector<Span>& spans) {
    if (m_annotations)
        m_annotations->setSpans(spans);
}

void TimelineChart::layoutAnnotations() {
    if (m_annotations)
        m_annotations->layout();
}

std::vector<QRectF> TimelineChart::spanRects() const {
    return m_annotations ? m_annotations->spanRects() : std::vector<QRectF>{};
}

QStringList TimelineChart::spanLabels() const {
    return m_annotations ? m_annotations->spanLabels() : QStringList{};
}

std::vector<QLineF> TimelineChart::markerLines() const {
    return m_annotations ? m_annotations->markerLines() : std::vector<QLineF>{};
}

std::vector<QRectF> TimelineChart::markerLabelRects() const {
    return m_annotations ? m_annotations->markerLabelRects() : std::vector<QRectF>{};
}

QStringList TimelineChart::markerLabels() const {
    return m_annotations ? m_annotations->markerLabels() : QStringList{};
}

void TimelineChart::setCrosshair(double x) {
    if (isAbsent() || std::isnan(x) || x < m_x->min() || x > m_x->max()) {
        m_crossLine->hide();
        m_crossText->hide();
        return;
    }
    const QRectF plot = m_chart->plotArea();
    const QPointF at = m_chart->mapToPosition(QPointF(x, m_y->min()), m_series.front());
    m_crossLine->setLine(at.x(), plot.top(), at.x(), plot.bottom());
    // A few pixels either side count as "at the cursor", whatever the zoom.
    const double tolerance = 4 * (m_x->max() - m_x->min()) / std::max(1.0, plot.width());
    QStringList lines;
    for (std::size_t i = 0; i < m_series.size() && i < m_data.size(); ++i) {
        double v = 0;
        if (m_series[i]->isVisible() && ChartPoints::valueAt(m_data[i], m_origin, x, tolerance, v))
            lines << QString("%1: %2").arg(m_series[i]->name(), m_scale.format(v));
    }
    m_crossText->setText(lines.join('\n'));
    m_crossText->setBrush(m_chart->titleBrush());
    const double textX = at.x() + 8 + m_crossText->boundingRect().width() > plot.right()
                             ? at.x() - 8 - m_crossText->boundingRect().width()
                             : at.x() + 8;
    m_crossText->setPos(textX, plot.top() + 4);
    m_crossLine->show();
    m_crossText->setVisible(!lines.isEmpty());
}

void TimelineChart::setSelection(double x0, double x1) {
    m_selection->setRange(x0, x1);
    layoutSelection();
}

QRectF TimelineChart::selectionRect() const {
    return m_selection->isVisible() ? m_selection->rect() : QRectF();
}

void TimelineChart::layoutSelection() {
    if (m_selection && !isAbsent()) // the plot area is laid out before the band exists
        m_selection->layout(m_chart, m_x, m_series.front());
}

QMenu* TimelineChart::contextMenu() {
    auto* menu = new QMenu(this);
    connect(menu->addAction(tr("Export this chart…")), &QAction::triggered, this,
            &TimelineChart::exportRequested);
    return menu;
}

bool TimelineChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_view->viewport() || m_series.empty())
        return QWidget::eventFilter(watched, event);
    auto xAt = [this](QPointF pos) {
        return m_chart->mapToValue(m_view->mapToScene(pos.toPoint()), m_series.front()).x();
    };
    switch (event->type()) {
    case QEvent::ContextMenu: {
        auto* menu = contextMenu();
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(static_cast<QContextMenuEvent*>(event)->globalPos());
        return true;
    }
    case QEvent::MouseMove: {
        auto* e = static_cast<QMouseEvent*>(event);
        const double x = xAt(e->position());
        if (m_selecting) {
            emit selecting(std::min(m_selectFrom, x), std::max(m_selectFrom, x));
            return true;
        }
        if (m_dragging) {
            emit panned(m_dragX - x);
            return true;
        }
        emit hovered(m_chart->plotArea().contains(m_view->mapToScene(e->position().toPoint()))
                         ? x
                         : std::nan(""));
        break;
    }
    case QEvent::Leave:
        emit hovered(std::nan(""));
        break;
    case QEvent::MouseButtonPress: {
        auto* e = static_cast<QMouseEvent*>(event);
        m_pressAt = e->position();
        m_clickedSpan = -1;
        m_afterDoubleClick = false;
        // Shift+drag selects a range; a plain drag still pans.
        if (m_interactive && e->button() == Qt::LeftButton &&
            e->modifiers().testFlag(Qt::ShiftModifier)) {
            m_selecting = true;
            m_selectFrom = xAt(e->position());
            return true;
        }
        if (m_interactive && e->button() == Qt::LeftButton) {
            m_dragging = true;
            m_dragX = xAt(e->position());
            return true;
        }
        break;
    }
    case QEvent::MouseButtonRelease: {
        m_dragging = false;
        auto* e = static_cast<QMouseEvent*>(event);
        const bool click = (e->position() - m_pressAt).manhattanLength() < 4;
        if (m_selecting) {
            m_selecting = false;
            const double x = xAt(e->position());
            // A Shift+click selects nothing: an empty range.
            emit selected(std::min(m_selectFrom, x),
                          click ? std::min(m_selectFrom, x) : std::max(m_selectFrom, x));
            return true;
        }
        if (std::exchange(m_afterDoubleClick, false))
            break;
        // A click, not the end of a drag: the run under it.
        if (e->button() == Qt::LeftButton && click) {
            const double x = xAt(e->position());
            if (const auto span = m_annotations ? m_annotations->spanAt(x) : std::nullopt) {
                m_clickedSpan = *span;
                emit spanClicked(*span);
            }
        }
        break;
    }
    case QEvent::MouseButtonDblClick:
        if (m_interactive) {
            m_dragging = false;
            m_selecting = false;
            m_afterDoubleClick = true;
            // The first click zoomed to its run, which moved the span under the pointer: the
            // run is the one that click hit.
            auto span = m_clickedSpan >= 0 ? std::optional<int>(m_clickedSpan) : std::nullopt;
            if (!span && m_annotations)
                span = m_annotations->spanAt(xAt(static_cast<QMouseEvent*>(event)->position()));
            if (span)
                emit spanDoubleClicked(*span);
            else
                emit resetRequested();
            return true;
        }
        break;
    case QEvent::Wheel: {
        if (!m_interactive)
            break;
        auto* e = static_cast<QWheelEvent*>(event);
        const double steps = e->angleDelta().y() / 120.0;
        if (steps != 0)
            emit zoomed(std::pow(0.8, steps), xAt(e->position()));
        return true;
    }
    default:
        break;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace tierscope
