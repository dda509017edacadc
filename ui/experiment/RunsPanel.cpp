#include "ui/experiment/RunsPanel.h"

#include "ui/experiment/RunTableModel.h"

#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace tierscope {

namespace {

std::vector<std::string> groupsOf(const std::vector<RunRequestSummary::Row>& rows) {
    std::vector<std::string> groups;
    for (const auto& row : rows)
        if (std::find(groups.begin(), groups.end(), row.group) == groups.end())
            groups.push_back(row.group);
    return groups;
}

int indexOf(const std::vector<std::string>& groups, const std::string& group) {
    return static_cast<int>(std::find(groups.begin(), groups.end(), group) - groups.begin());
}

QValueAxis* axis(QChart* chart, Qt::Alignment side, const QString& title, double low, double high) {
    auto* a = new QValueAxis(chart);
    a->setTitleText(title);
    a->setRange(low, high > low ? high : low + 1);
    a->applyNiceNumbers();
    a->setLabelFormat("%g");
    chart->addAxis(a, side);
    return a;
}

// The panel sits in a dock a few hundred pixels high: the tab names the chart, the legend
// goes to the side, and the plot keeps the height.
void compact(QChart* chart) {
    chart->setTitle({});
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    chart->legend()->setAlignment(Qt::AlignRight);
}

// One legend entry per group, named after it: ten repetitions of an arm are one colour.
void nameOncePerGroup(QChart* chart, QAbstractSeries* series, const QString& group,
                      std::vector<QString>& named) {
    const bool first = std::find(named.begin(), named.end(), group) == named.end();
    if (first)
        named.push_back(group);
    series->setName(group);
    for (auto* marker : chart->legend()->markers(series))
        marker->setVisible(first);
}

} // namespace

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
    m_model = new RunTableModel(this);
    auto* sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_model);
    sorted->setSortRole(Qt::UserRole);
    m_table = new QTableView(this);
    m_table->setModel(sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunTableModel::Run, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this, sorted] {
                if (m_selectingRows)
                    return;
                QList<qint64> runs;
                for (const auto& index : m_table->selectionModel()->selectedRows()) {
                    const auto source = sorted->mapToSource(index);
                    runs << m_model->rows().at(static_cast<std::size_t>(source.row())).run.id;
                }
                std::sort(runs.begin(), runs.end());
                if (runs == m_highlighted)
                    return;
                m_highlighted = runs;
                rebuild();
                emit runsSelected(runs);
            });

    m_cdf = new QChart;
    m_overlay = new QChart;
    m_cdfView = new QChartView(m_cdf, this);
    m_overlayView = new QChartView(m_overlay, this);
    for (auto* view : {m_cdfView, m_overlayView}) {
        view->setRenderHint(QPainter::Antialiasing);
        view->setMinimumSize(320, 180);
    }
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_cdfView, tr("TTFT CDF"));
    m_tabs->setTabToolTip(0, tr("Each run's share of its successful requests at or below a TTFT"));
    m_tabs->addTab(m_overlayView, tr("TTFT by run, from its start"));
    m_tabs->setTabToolTip(1, tr("Each request's TTFT against the seconds since its run started"));

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    rebuild();
}

QColor RunsPanel::groupColor(int index, bool dark) {
    // Okabe-Ito: told apart with the common colour-vision deficiencies.
    static const QColor kLight[] = {QColor(0, 114, 178),  QColor(213, 94, 0),
                                    QColor(0, 158, 115),  QColor(204, 121, 167),
                                    QColor(86, 180, 233), QColor(230, 159, 0)};
    static const QColor kDark[] = {QColor(86, 180, 233),  QColor(230, 159, 0),  QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(240, 228, 66), QColor(213, 94, 0)};
    const int n = static_cast<int>(std::size(kLight));
    return (dark ? kDark : kLight)[((index % n) + n) % n];
}

void RunsPanel::setRows(std::vector<RunRequestSummary::Row> rows) {
    m_highlighted.clear();
    m_model->setRows(std::move(rows));
    m_table->resizeColumnsToContents();
    rebuild();
}

void RunsPanel::setDark(bool dark) {
    if (dark == m_dark)
        return;
    m_dark = dark;
    rebuild();
}

void RunsPanel::highlightRun(qint64 runId) {
    highlightRuns(runId != 0 ? QList<qint64>{runId} : QList<qint64>{});
}

void RunsPanel::highlightRuns(const QList<qint64>& runIds) {
    if (runIds == m_highlighted)
        return;
    m_highlighted = runIds;
    selectRows();
    rebuild();
}

void RunsPanel::selectRows() {
    m_selectingRows = true;
    auto* selection = m_table->selectionModel();
    selection->clearSelection();
    const auto* sorted = m_table->model();
    for (int r = 0; r < sorted->rowCount(); ++r) {
        const auto index = sorted->index(r, RunTableModel::Run);
        if (m_highlighted.contains(sorted->data(index, Qt::UserRole).toLongLong()))
            selection->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    m_selectingRows = false;
}

void RunsPanel::rebuild() {
    const auto groups = groupsOf(m_model->rows());
    for (auto* chart : {m_cdf, m_overlay}) {
        chart->removeAllSeries();
        for (auto* a : chart->axes()) {
            chart->removeAxis(a); // which gives the axis back to us
            delete a;
        }
        chart->setTheme(m_dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
        compact(chart);
    }
    buildCdf(groups);
    buildOverlay(groups);
}

void RunsPanel::buildCdf(const std::vector<std::string>& groups) {
    double top = 0;
    std::vector<QString> named;
    std::vector<QLineSeries*> all;
    for (const auto& row : m_model->rows()) {
        if (row.ttftS.empty())
            continue;
        auto* line = new QLineSeries(m_cdf);
        double previous = 0;
        for (const auto& [x, fraction] : RunRequestSummary::cdf(row.ttftS)) {
            line->append(x, previous); // a step: flat until the next value, then up
            line->append(x, fraction);
            previous = fraction;
        }
        top = std::max(top, row.ttftS.back());
        QPen pen(groupColor(indexOf(groups, row.group), m_dark));
        pen.setWidthF(m_highlighted.contains(row.run.id) ? 3.5 : 1.5);
        if (!row.measurement) // a warm-up or a cancelled run: drawn, but not as a measurement
            pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        m_cdf->addSeries(line);
        nameOncePerGroup(m_cdf, line, QString::fromStdString(row.group), named);
        all.push_back(line);
    }
    auto* x = axis(m_cdf, Qt::AlignBottom, tr("TTFT (s)"), 0, top);
    auto* y = axis(m_cdf, Qt::AlignLeft, tr("share"), 0, 1);
    y->setRange(0, 1);
    y->setTickCount(6);
    for (auto* line : all) {
        line->attachAxis(x);
        line->attachAxis(y);
    }
}

void RunsPanel::buildOverlay(const std::vector<std::string>& groups) {
    double right = 0, top = 0;
    std::vector<QString> named;
    std::vector<QScatterSeries*> all;
    for (const auto& row : m_model->rows()) {
        if (row.ttftOverRunS.empty())
            continue;
        auto* dots = new QScatterSeries(m_overlay);
        for (const auto& [t, ttft] : row.ttftOverRunS) {
            dots->append(t, ttft);
            right = std::max(right, t);
            top = std::max(top, ttft);
        }
        const bool thick = m_highlighted.contains(row.run.id);
        dots->setMarkerSize(thick ? 9 : 6);
        const QColor color = groupColor(indexOf(groups, row.group), m_dark);
        // Hollow for a warm-up or a cancelled run, as its CDF is dashed.
        dots->setColor(row.measurement ? color : QColor(Qt::transparent));
        dots->setBorderColor(thick             ? palette().color(QPalette::Text)
                             : row.measurement ? QColor(Qt::transparent)
                                               : color);
        m_overlay->addSeries(dots);
        nameOncePerGroup(m_overlay, dots, QString::fromStdString(row.group), named);
        all.push_back(dots);
    }
    auto* x = axis(m_overlay, Qt::AlignBottom, tr("seconds since the run started"), 0, right);
    auto* y = axis(m_overlay, Qt::AlignLeft, tr("TTFT (s)"), 0, top);
    for (auto* dots : all) {
        dots->attachAxis(x);
        dots->attachAxis(y);
    }
}

} // namespace tierscope
