#include "core/compare/RunKpis.h"
#include "core/util/UnitFormat.h"
#include "ui/experiment/RunTableModel.h"
#include "ui/experiment/RunsPanel.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTableView>
#include <QValueAxis>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// Two arms of two repetitions: A's TTFTs 0.1-0.4 s, B's 1-4 s; run 12 had a failure.
std::vector<std::pair<RunInfo, std::vector<StoredRequest>>> twoArms() {
    std::vector<std::pair<RunInfo, std::vector<StoredRequest>>> runs;
    for (int i = 0; i < 4; ++i) {
        RunInfo run;
        run.id = 10 + i;
        run.arm = i < 2 ? "A" : "B";
        run.workload = "load";
        run.repetition = i % 2;
        run.status = "completed";
        run.startNs = (100 + 60 * i) * kSecond;
        run.endNs = run.startNs + 30 * kSecond;
        std::vector<StoredRequest> requests;
        for (int k = 1; k <= 4; ++k) {
            StoredRequest r;
            r.ok = !(run.id == 12 && k == 4);
            r.ttftS = (i < 2 ? 0.1 : 1.0) * k;
            r.e2eS = *r.ttftS + 2;
            r.outputTokens = 20;
            r.sendNs = run.startNs + k * kSecond;
            requests.push_back(r);
        }
        runs.emplace_back(run, requests);
    }
    return runs;
}

QStringList legendNames(QChart* chart) {
    QStringList names;
    for (auto* marker : chart->legend()->markers())
        if (marker->isVisible())
            names << marker->label();
    return names;
}

} // namespace

class TestRunsPanel : public QObject {
    Q_OBJECT
  private slots:
    void tableModelPassesTheTesterAndShowsEachRunsFigures() {
        RunTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(RunRequestSummary::of(twoArms()));
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.columnCount(), int(RunTableModel::ColumnCount));
        QCOMPARE(model.index(0, RunTableModel::Group).data().toString(), QString("A"));
        QCOMPARE(model.index(2, RunTableModel::Run).data().toLongLong(), 12LL);
        QCOMPARE(model.index(2, RunTableModel::Requests).data().toString(), QString("4"));
        QCOMPARE(model.index(2, RunTableModel::FailureRate).data().toString(), QString("25 %"));
        // p50 of 1, 2, 3 s (the failed request left out), interpolated as compare does.
        QCOMPARE(model.index(2, RunTableModel::TtftP50).data(Qt::UserRole).toDouble(), 2.0);
        QVERIFY(!model.index(2, RunTableModel::TtftP50).data().toString().isEmpty());
        QCOMPARE(model.index(2, RunTableModel::TtftP50).data().toString(), QString("2.000 s"));
        QCOMPARE(
            model.headerData(RunTableModel::TtftP99, Qt::Horizontal, Qt::DisplayRole).toString(),
            QString("TTFT p99"));
        // A run that issued only failures: its TTFT cells are empty, not 0.
        auto runs = twoArms();
        for (auto& r : runs[0].second)
            r.ok = false;
        model.setRows(RunRequestSummary::of(runs));
        QVERIFY(model.index(0, RunTableModel::TtftP50).data().toString().isEmpty());
        QVERIFY(!model.index(0, RunTableModel::TtftP50).data(Qt::UserRole).isValid());
    }

    // A figure of the run table is the compare table's: named by the KPI's display name and
    // written with its unit and rounding (it was "Failed", "28.4 ms" beside compare's
    // "failure rate", "28.43 ms").
    void everyFigureColumnIsNamedAndWrittenAsCompareWritesIt() {
        RunTableModel model;
        model.setRows(RunRequestSummary::of(twoArms()));
        const std::vector<std::pair<int, std::string>> columns = {
            {RunTableModel::FailureRate, "failure_rate"},
            {RunTableModel::TtftP50, "ttft_p50"},
            {RunTableModel::TtftP99, "ttft_p99"},
            {RunTableModel::OutputThroughput, "output_throughput"},
            {RunTableModel::RequestThroughput, "request_throughput"}};
        int compared = 0;
        for (const auto& [column, name] : columns) {
            const auto* kpi = RunKpis::find(name);
            QVERIFY2(kpi, name.c_str());
            QCOMPARE(model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(),
                     QString::fromStdString(kpi->displayName));
            for (int row = 0; row < model.rowCount(); ++row) {
                const QVariant value = model.index(row, column).data(Qt::UserRole);
                if (!value.isValid())
                    continue;
                QCOMPARE(model.index(row, column).data().toString(),
                         QString::fromStdString(UnitFormat::kpi(value.toDouble(), kpi->unit)));
                ++compared;
            }
        }
        QVERIFY(compared >= 12); // four runs, most figures present
    }

    // One CDF line and one dot series per run, coloured by arm, with one legend entry per arm;
    // each CDF climbs to 1 at its run's slowest TTFT.
    void chartsDrawEveryRunColouredByArm() {
        RunsPanel panel;
        panel.setRows(RunRequestSummary::of(twoArms()));
        QCOMPARE(panel.cdfChart()->series().size(), 4);
        QCOMPARE(panel.overlayChart()->series().size(), 4);
        // The legend lays its markers out once shown.
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTRY_COMPARE(legendNames(panel.cdfChart()), (QStringList{"A", "B"}));
        QTRY_COMPARE(legendNames(panel.overlayChart()), (QStringList{"A", "B"}));
        auto line = [&](int i) {
            return qobject_cast<QLineSeries*>(panel.cdfChart()->series()[i]);
        };
        QCOMPARE(line(0)->pen().color(), line(1)->pen().color());
        QVERIFY(line(0)->pen().color() != line(2)->pen().color());
        QCOMPARE(line(0)->points().back(), QPointF(0.4, 1.0));
        QCOMPARE(line(2)->points().back(), QPointF(3.0, 1.0)); // 3 of 3 successful
        auto* x = qobject_cast<QValueAxis*>(panel.cdfChart()->axes(Qt::Horizontal).front());
        QVERIFY(x && x->max() >= 4.0);
        auto* dots = qobject_cast<QScatterSeries*>(panel.overlayChart()->series()[3]);
        QCOMPARE(dots->points().front(), QPointF(1.0, 1.0)); // 1 s after its start, TTFT 1 s
        QCOMPARE(dots->color(), line(3)->pen().color());
    }

    // A row selected in the table asks the timeline to show its run and draws its lines thick;
    // Ctrl+click adds a second run.
    void selectingRowsHighlightsTheirRuns() {
        RunsPanel panel;
        panel.setRows(RunRequestSummary::of(twoArms()));
        QSignalSpy selected(&panel, &RunsPanel::runsSelected);
        panel.table()->selectRow(3);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.last().first().value<QList<qint64>>(), QList<qint64>{13});
        QCOMPARE(panel.highlightedRuns(), QList<qint64>{13});
        auto width = [&](int i) {
            return qobject_cast<QLineSeries*>(panel.cdfChart()->series()[i])->pen().widthF();
        };
        QVERIFY(width(3) > width(2));
        panel.table()->selectionModel()->select(panel.table()->model()->index(1, 0),
                                                QItemSelectionModel::Select |
                                                    QItemSelectionModel::Rows);
        QCOMPARE(selected.count(), 2);
        QCOMPARE(panel.highlightedRuns(), (QList<qint64>{11, 13}));
        QVERIFY(width(1) > width(2));
        QVERIFY(width(3) > width(2));
        panel.highlightRun(0);
        QCOMPARE(width(3), width(2));
        QVERIFY(panel.table()->selectionModel()->selectedRows().isEmpty());
        QCOMPARE(selected.count(), 2); // told by the window, not by the user: no echo back
    }

    // Runs highlighted from outside (a link's --runs 11,13) are the rows selected in the table.
    void highlightedRunsAreTheSelectedRows() {
        RunsPanel panel;
        panel.setRows(RunRequestSummary::of(twoArms()));
        QSignalSpy selected(&panel, &RunsPanel::runsSelected);
        panel.highlightRuns({11, 13});
        const auto rows = panel.table()->selectionModel()->selectedRows(RunTableModel::Run);
        QCOMPARE(rows.size(), 2);
        QList<qint64> ids;
        for (const auto& index : rows)
            ids << index.data(Qt::UserRole).toLongLong();
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids, (QList<qint64>{11, 13}));
        QCOMPARE(selected.count(), 0);
    }

    // Dark keeps each arm's colour family readable on the dark theme, and the charts follow.
    void darkThemeKeepsArmsApart() {
        RunsPanel panel;
        panel.setRows(RunRequestSummary::of(twoArms()));
        panel.setDark(true);
        QCOMPARE(panel.cdfChart()->theme(), QChart::ChartThemeDark);
        auto color = [&](int i) {
            return qobject_cast<QLineSeries*>(panel.cdfChart()->series()[i])->pen().color();
        };
        QCOMPARE(color(0), RunsPanel::groupColor(0, true));
        QCOMPARE(color(2), RunsPanel::groupColor(1, true));
        QVERIFY(RunsPanel::groupColor(0, true) != RunsPanel::groupColor(1, true));
        panel.setRows({});
        QCOMPARE(panel.cdfChart()->series().size(), 0);
    }

    // A warm-up run is drawn, dashed and hollow: it is no measurement and compare leaves it out.
    void aWarmUpIsDashed() {
        auto runs = twoArms();
        runs[1].first.status = "warmup";
        RunsPanel panel;
        panel.setRows(RunRequestSummary::of(runs));
        auto line = [&](int i) {
            return qobject_cast<QLineSeries*>(panel.cdfChart()->series()[i]);
        };
        QCOMPARE(line(1)->pen().style(), Qt::DashLine);
        QCOMPARE(line(0)->pen().style(), Qt::SolidLine);
        auto* dots = qobject_cast<QScatterSeries*>(panel.overlayChart()->series()[1]);
        QCOMPARE(dots->color().alpha(), 0);
        QCOMPARE(dots->borderColor(), line(1)->pen().color());
    }
};

QTEST_MAIN(TestRunsPanel)
#include "tst_runspanel.moc"
