#include "ui/timeline/TimelineView.h"

#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/SectionTrack.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/TimelineChart.h"

#include <QAction>
#include <QChart>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace tierscope {

namespace {

constexpr double kMinSpanS = 1.0; // zoomed in no closer than one second across

bool sameLayout(const std::vector<ChartCatalog::Chart>& a,
                const std::vector<ChartCatalog::Chart>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].id != b[i].id || a[i].series.size() != b[i].series.size() ||
            a[i].absentReason != b[i].absentReason)
            return false;
        for (std::size_t j = 0; j < a[i].series.size(); ++j)
            if (a[i].series[j].metricId != b[i].series[j].metricId ||
                a[i].series[j].name != b[i].series[j].name)
                return false;
    }
    return true;
}

} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);
    m_tiles = new StatTileRow(this);
    outer->addWidget(m_tiles);
    // The session's phases and runs by name, above everything drawn on the time axis.
    m_sections = new SectionTrack(this);
    outer->addWidget(m_sections);
    connect(m_sections, &SectionTrack::sectionClicked, this,
            [this](const PhaseSections::Section& s) { selectSpan(s.runId, s.t0Ns, s.t1Ns); });
    m_band = new BottleneckBand(this);
    outer->addWidget(m_band);
    // Beside the lane, in words: what the range in view was bound by, and where TTFT went.
    m_rangeLabel = new QLabel(this);
    m_rangeLabel->setObjectName("bottleneckRange");
    m_rangeLabel->setContentsMargins(8, 0, 4, 0);
    m_rangeLabel->setWordWrap(true);
    m_rangeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_band, &BottleneckBand::rangeTextChanged, m_rangeLabel, &QLabel::setText);
    m_axisLabel = new QLabel(this);
    m_axisLabel->setAlignment(Qt::AlignRight | Qt::AlignTop);
    m_axisLabel->setContentsMargins(4, 0, 8, 0);
    m_axisLabel->setForegroundRole(QPalette::PlaceholderText);
    auto* under = new QHBoxLayout;
    under->setContentsMargins(0, 0, 0, 0);
    under->addWidget(m_rangeLabel, 1);
    under->addWidget(m_axisLabel, 0);
    outer->addLayout(under);
    auto* scroll = m_scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* inner = new QWidget(scroll);
    m_layout = new QVBoxLayout(inner);
    m_layout->setContentsMargins(4, 4, 4, 4);
    m_layout->setSpacing(4);
    m_layout->addStretch(1);
    scroll->setWidget(inner);
    outer->addWidget(scroll);
    connect(scroll->verticalScrollBar(), &QScrollBar::valueChanged, this, [this] {
        applyToVisible();
        emit viewportMoved();
    });
    m_reset = new QAction(tr("Reset zoom"), this);
    m_reset->setShortcut(QKeySequence("Ctrl+0"));
    m_reset->setToolTip(tr("Show the whole session again (Ctrl+0, or double-click a chart)"));
    m_reset->setEnabled(false);
    connect(m_reset, &QAction::triggered, this, &TimelineView::resetZoom);
}

void TimelineView::setCharts(const std::vector<ChartCatalog::Chart>& charts) {
    if (sameLayout(charts, m_specs))
        return;
    m_specs = charts;
    for (auto* c : m_charts)
        c->deleteLater();
    m_charts.clear();
    m_stale.clear();
    // Charts with data first, in the story's order, then the ones that explain why they are
    // empty.
    std::vector<const ChartCatalog::Chart*> order;
    for (const auto& c : charts)
        order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        if (a->series.empty() != b->series.empty())
            return b->series.empty();
        return storyRank(a->id) < storyRank(b->id);
    });
    for (const auto* spec : order) {
        auto* chart = new TimelineChart(*spec, m_renderer, m_dark, this);
        chart->setInteractive(m_interactive);
        m_layout->insertWidget(m_layout->count() - 1, chart);
        connect(chart, &TimelineChart::hovered, this, [this](double x) {
            for (auto* c : m_charts)
                c->setCrosshair(x);
        });
        connect(chart, &TimelineChart::zoomed, this, &TimelineView::zoom);
        connect(chart->chart(), &QChart::plotAreaChanged, this, &TimelineView::alignBand);
        connect(chart, &TimelineChart::panned, this, &TimelineView::pan);
        connect(chart, &TimelineChart::resetRequested, this, &TimelineView::resetZoom);
        connect(chart, &TimelineChart::exportRequested, this,
                [this, id = QString::fromStdString(spec->id)] { emit chartExportRequested(id); });
        connect(chart, &TimelineChart::seriesToggled, this,
                [this, id = spec->id](const QString& name, bool shown) {
                    auto& off = m_hiddenSeries[id];
                    if (shown)
                        off.erase(name.toStdString());
                    else
                        off.insert(name.toStdString());
                    if (off.empty())
                        m_hiddenSeries.erase(id);
                    emit seriesToggled(QString::fromStdString(id), name, shown);
                });
        if (const auto it = m_hiddenSeries.find(spec->id); it != m_hiddenSeries.end())
            for (const auto& name : it->second)
                chart->setSeriesShown(QString::fromStdString(name), false);
        chart->setTimeRange(m_x0, m_x1, m_axisTitle);
        applyMarkers(chart);
        connect(chart, &TimelineChart::spanClicked, this, [this](int index) {
            if (index < 0 || index >= static_cast<int>(m_spans.size()))
                return;
            const TimelineSpan& span = m_spans[static_cast<std::size_t>(index)];
            selectRun(span.runId);
            // Zoomed to the run with a little of either side, which the range reload reads.
            const double x0 = static_cast<double>(span.t0Ns - m_origin) / 1e9;
            const double x1 = static_cast<double>(span.t1Ns - m_origin) / 1e9;
            const double pad = std::max(0.5, (x1 - x0) * 0.05);
            const auto [a, b] = clampRange(x0 - pad, x1 + pad, m_bound0, m_bound1, kMinSpanS);
            moveTo(a, b);
            emit runSelected(span.runId);
        });
        connectSelection(chart);
        m_charts.push_back(chart);
        applySpans(chart);
    }
    fitChartHeights();
}

// A Shift+drag draws its band on every chart as it moves and selects the range where it ends;
// a double-click on a run selects exactly the run.
void TimelineView::connectSelection(TimelineChart* chart) {
    if (hasSelection())
        chart->setSelection(m_selection0, m_selection1);
    connect(chart, &TimelineChart::selecting, this, &TimelineView::showSelection);
    connect(chart, &TimelineChart::selected, this, &TimelineView::selectRange);
    connect(chart, &TimelineChart::spanDoubleClicked, this, [this](int index) {
        if (index < 0 || index >= static_cast<int>(m_spans.size()))
            return;
        const TimelineSpan& span = m_spans[static_cast<std::size_t>(index)];
        selectSpan(span.runId, span.t0Ns, span.t1Ns);
    });
}

void TimelineView::selectSpan(qint64 runId, std::int64_t t0Ns, std::int64_t t1Ns) {
    selectRun(runId);
    selectRange(static_cast<double>(t0Ns - m_origin) / 1e9,
                static_cast<double>(t1Ns - m_origin) / 1e9);
    if (runId != 0)
        emit runSelected(runId);
}

void TimelineView::showSelection(double x0, double x1) {
    for (auto* c : m_charts)
        c->setSelection(x0, x1);
}

void TimelineView::selectRange(double x0, double x1) {
    if (m_bound1 > m_bound0) {
        x0 = std::max(x0, m_bound0);
        x1 = std::min(x1, m_bound1);
    }
    if (!m_interactive || !(x1 > x0)) {
        // A Shift+click selects nothing: the band its drag drew goes back to the selection.
        showSelection(hasSelection() ? m_selection0 : std::nan(""), m_selection1);
        return;
    }
    m_selection0 = x0;
    m_selection1 = x1;
    m_sections->clearPicks(); // a section clicked picks itself again once this returns
    showSelection(x0, x1);
    emit rangeSelected(x0, x1);
}

void TimelineView::clearSelection() {
    // Also the band of a Shift+drag still under way.
    showSelection(std::nan(""), std::nan(""));
    m_sections->clearPicks();
    if (!hasSelection())
        return;
    m_selection0 = m_selection1 = 0;
    emit selectionCleared();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && hasSelection()) {
        clearSelection();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

std::set<std::int64_t> TimelineView::storedMetricIds() const {
    std::set<std::int64_t> out;
    for (const auto& chart : m_specs)
        for (const auto& s : chart.series)
            if (s.metricId > 0)
                out.insert(s.metricId);
    return out;
}

int TimelineView::storyRank(const std::string& chartId) {
    // The KV tiers' bandwidth right under the block devices' that carry it, then where the
    // TTFT went and where the prompt tokens came from.
    static const char* const story[] = {
        "load-ttft", "load-throughput", "engine-ttft", "engine-tokens",  "requests",
        "gpu-busy",  "storage",         "kv-tiers",    "ttft-breakdown", "kv-token-sources",
        "kv-cache",  "gpu-vram",        "host-cpu",    "host-memory"};
    for (std::size_t i = 0; i < std::size(story); ++i)
        if (chartId == story[i])
            return static_cast<int>(i);
    return static_cast<int>(std::size(story));
}

// Three charts to a screen, so at 1280x720 the first look shows TTFT, throughput and GPU
// without scrolling; no lower than a plot stays legible, no higher than the full size.
void TimelineView::fitChartHeights() {
    const int h = std::clamp((m_scroll->viewport()->height() - 16) / 3, 150, 230);
    for (auto* c : m_charts)
        c->setChartHeight(h);
}

void TimelineView::setData(const std::map<std::int64_t, std::vector<Bucket>>& data,
                           std::int64_t originNs) {
    m_data = data;
    dataReplaced(originNs);
}

void TimelineView::setVisibleData(const std::map<std::int64_t, std::vector<Bucket>>& data,
                                  std::int64_t originNs) {
    for (const auto& [id, buckets] : data)
        m_data[id] = buckets;
    dataReplaced(originNs);
}

std::vector<ChartCatalog::Chart> TimelineView::visibleSpecs() const {
    std::vector<ChartCatalog::Chart> out;
    for (const auto* chart : m_charts)
        if (inView(chart))
            out.push_back(chart->spec());
    return out;
}

void TimelineView::dataReplaced(std::int64_t originNs) {
    const bool moved = originNs != m_origin;
    m_origin = originNs;
    m_sections->setOrigin(originNs);
    for (auto* chart : m_charts) {
        m_stale[chart] = true;
        if (moved && !m_markers.empty()) // the live origin is "now": every frame moves them
            applyMarkers(chart);
        if (moved && !m_spans.empty())
            applySpans(chart);
    }
    applyToVisible();
    alignBand();
}

// Charts scrolled out of view keep their old data until they come back: work for a chart nobody
// sees is wasted, and with QtCharts' own series (the OpenGL setting) a replace costs about a
// microsecond per point.
void TimelineView::applyToVisible() {
    for (auto* chart : m_charts)
        if (m_stale[chart] && inView(chart))
            applyData(chart);
}

bool TimelineView::inView(const TimelineChart* chart) const {
    // Not laid out yet (just created, or the view hidden): draw it now rather than never.
    if (!isVisible() || chart->geometry().isEmpty())
        return true;
    const QRect viewport(m_scroll->widget()->mapFrom(m_scroll->viewport(), QPoint(0, 0)),
                         m_scroll->viewport()->size());
    return viewport.intersects(chart->geometry());
}

void TimelineView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitChartHeights();
    applyToVisible();
    alignBand();
    emit viewportMoved();
}

void TimelineView::applyData(TimelineChart* chart) {
    m_stale[chart] = false;
    if (chart->isAbsent())
        return;
    std::vector<std::vector<Bucket>> perSeries;
    for (const auto& s : chart->spec().series) {
        const auto it = m_data.find(s.metricId);
        perSeries.push_back(it == m_data.end() ? std::vector<Bucket>{} : it->second);
    }
    chart->setData(perSeries, m_origin);
}

void TimelineView::setTimeRange(double x0, double x1, const QString& axisTitle) {
    m_x0 = x0;
    m_x1 = x1;
    m_axisTitle = axisTitle;
    if (const QString text = tr("time axis: %1").arg(axisTitle); m_axisLabel->text() != text)
        m_axisLabel->setText(text);
    for (auto* c : m_charts)
        c->setTimeRange(x0, x1, axisTitle);
    m_band->setTimeRange(x0, x1);
    m_sections->setTimeRange(x0, x1);
    alignBand();
}

// Each chart sizes its plot to its own y labels ("100" against "1.5 GB/s"). Every chart is
// padded to the widest, so one moment sits at one x all down the stack, and the band's lane
// spans exactly the plots, so a window sits above its samples.
void TimelineView::alignBand() {
    std::vector<TimelineChart*> laidOut;
    double widest = 0;
    for (auto* chart : m_charts)
        if (!chart->isAbsent() && chart->chart()->plotArea().width() > 10) {
            laidOut.push_back(chart);
            widest = std::max(widest, chart->naturalPlotLeft());
        }
    if (laidOut.empty())
        return;
    for (auto* chart : laidOut)
        chart->setLeftInset(static_cast<int>(std::lround(widest - chart->naturalPlotLeft())));
    const QRect plot = laidOut.front()->plotRectIn(this);
    m_band->setPlotArea(plot.left(), plot.width());
    m_sections->setPlotArea(plot.left(), plot.width());
    if (const int w = laidOut.front()->plotWidth(); w != m_plotWidth) {
        m_plotWidth = w;
        emit plotWidthChanged(w);
    }
}

void TimelineView::setDark(bool dark) {
    if (dark == m_dark)
        return;
    m_dark = dark;
    auto specs = m_specs; // a theme resets series pens: rebuild the charts instead
    m_specs.clear();
    setCharts(specs);
}

void TimelineView::setHiddenSeries(const std::map<std::string, std::set<std::string>>& hidden) {
    m_hiddenSeries = hidden;
    for (auto* c : m_charts) {
        const auto it = m_hiddenSeries.find(c->spec().id);
        for (const auto& name : c->legendNames())
            c->setSeriesShown(name, it == m_hiddenSeries.end() ||
                                        !it->second.contains(name.toStdString()));
    }
}

void TimelineView::setMarkers(const std::vector<TimelineMarker>& markers) {
    m_markers = markers;
    for (auto* c : m_charts)
        applyMarkers(c);
}

void TimelineView::setSpans(const std::vector<TimelineSpan>& spans) {
    m_spans = spans;
    m_selectedRuns.clear();
    clearSelection(); // new runs: another session, or the live view
    for (auto* c : m_charts)
        applySpans(c);
}

void TimelineView::selectRun(qint64 runId) {
    selectRuns(runId != 0 ? QList<qint64>{runId} : QList<qint64>{});
}

void TimelineView::selectRuns(const QList<qint64>& runIds) {
    m_selectedRuns = runIds;
    for (auto* c : m_charts)
        applySpans(c);
}

// One colour per arm, in the order the arms first ran; warm-ups grey, invalid runs red.
void TimelineView::applySpans(TimelineChart* chart) {
    static const QColor arms[] = {{31, 119, 180}, {148, 103, 189}, {23, 190, 207},
                                  {188, 189, 34}, {140, 86, 75},   {227, 119, 194}};
    QStringList groups;
    std::vector<TimelineChart::Span> out;
    out.reserve(m_spans.size());
    for (const auto& s : m_spans) {
        if (!groups.contains(s.group))
            groups << s.group;
        TimelineChart::Span span;
        span.x0 = static_cast<double>(s.t0Ns - m_origin) / 1e9;
        span.x1 = static_cast<double>(s.t1Ns - m_origin) / 1e9;
        span.label = s.label;
        span.tooltip = s.detail;
        span.selected = s.runId != 0 && m_selectedRuns.contains(s.runId);
        span.color = s.kind == TimelineSpan::Kind::Invalid  ? QColor(214, 39, 40)
                     : s.kind == TimelineSpan::Kind::Warmup ? QColor(127, 127, 127)
                                                            : arms[(groups.indexOf(s.group)) % 6];
        out.push_back(span);
    }
    chart->setSpans(out);
}

void TimelineView::applyMarkers(TimelineChart* chart) {
    std::vector<TimelineChart::Marker> xs;
    xs.reserve(m_markers.size());
    for (const auto& m : m_markers)
        xs.push_back({static_cast<double>(m.tNs - m_origin) / 1e9, m.text, m.routine});
    chart->setMarkers(xs);
}

void TimelineView::setInteractive(bool on) {
    m_interactive = on;
    for (auto* c : m_charts)
        c->setInteractive(on);
    m_reset->setEnabled(on && m_bound1 > m_bound0);
}

void TimelineView::setBounds(double x0, double x1) {
    m_bound0 = x0;
    m_bound1 = std::max(x0, x1);
    m_reset->setEnabled(m_interactive && m_bound1 > m_bound0);
}

void TimelineView::resetZoom() {
    if (!m_interactive || m_bound1 <= m_bound0)
        return;
    setTimeRange(m_bound0, m_bound1, m_axisTitle);
    emit rangeChanged(m_x0, m_x1);
}

std::pair<double, double> TimelineView::clampRange(double x0, double x1, double b0, double b1,
                                                   double minSpan) {
    if (x1 - x0 < minSpan) {
        const double mid = (x0 + x1) / 2;
        x0 = mid - minSpan / 2;
        x1 = mid + minSpan / 2;
    }
    if (b1 <= b0)
        return {x0, x1};
    if (x1 - x0 >= b1 - b0)
        return {b0, b1};
    if (x0 < b0)
        return {b0, b0 + (x1 - x0)};
    if (x1 > b1)
        return {b1 - (x1 - x0), b1};
    return {x0, x1};
}

int TimelineView::plotWidth() const {
    for (auto* c : m_charts)
        if (!c->isAbsent())
            return c->plotWidth();
    return std::max(200, width() - 260);
}

TimelineChart* TimelineView::chart(const std::string& id) const {
    for (auto* c : m_charts)
        if (c->spec().id == id)
            return c;
    return nullptr;
}

void TimelineView::zoom(double factor, double anchor) {
    if (factor < 1 && m_x1 - m_x0 <= kMinSpanS)
        return; // as close as it goes
    const auto [x0, x1] =
        clampRange(anchor - (anchor - m_x0) * factor, anchor + (m_x1 - anchor) * factor, m_bound0,
                   m_bound1, std::min(kMinSpanS, m_x1 - m_x0));
    moveTo(x0, x1);
}

// A drag stops at the session's ends: past them there is nothing to see, and it is easy to
// lose the data off the edge.
void TimelineView::pan(double dx) {
    const auto [x0, x1] = clampRange(m_x0 + dx, m_x1 + dx, m_bound0, m_bound1, 0);
    moveTo(x0, x1);
}

void TimelineView::moveTo(double x0, double x1) {
    if (x0 == m_x0 && x1 == m_x1)
        return;
    setTimeRange(x0, x1, m_axisTitle);
    emit rangeChanged(m_x0, m_x1);
}

} // namespace tierscope
