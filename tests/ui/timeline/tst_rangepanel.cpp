#include "core/analysis/RangeStatistics.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "ui/timeline/RangePanel.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QChart>
#include <QChartView>
#include <QMouseEvent>
#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL, kStart = 1'790'000'000LL * kSecond;

// gpu/0/busy_pct is i and host/cpu/busy_pct 2i at second i; one run from 20 s to 30 s.
double gpuAt(int i) {
    return i;
}
double cpuAt(int i) {
    return 2.0 * i;
}

std::vector<Bucket> perSecond(double (*value)(int)) {
    std::vector<Bucket> out;
    for (int i = 0; i < 60; ++i)
        out.push_back({kStart + i * kSecond, 0, value(i), value(i), value(i), 1});
    return out;
}

QString exactSeconds(std::int64_t ns) {
    return QString("%1.%2s").arg(ns / kSecond).arg(ns % kSecond, 9, 10, QChar('0'));
}

} // namespace

// The range panel beside a timeline of a recorded session: a range selected by the view's own
// slot, by a Shift+drag and by a double-click on a run gives the figures RangeStatistics and
// `tierscope analyze --range` give for it; Escape clears it.
class TestRangePanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0, m_gpu = 0, m_cpu = 0, m_run = 0;
    std::unique_ptr<TimelineView> m_view;
    std::unique_ptr<RangePanel> m_panel;

    QGraphicsView* viewOf(TimelineChart* chart) { return chart->chart()->scene()->views().front(); }
    // Where time x (and half the value axis' height) is drawn, in the chart's viewport.
    QPoint pointAt(TimelineChart* chart, double x) {
        const QPointF scene = chart->chart()->mapToPosition(QPointF(x, chart->valueTop() / 2),
                                                            chart->chart()->series().front());
        return viewOf(chart)->mapFromScene(scene);
    }

    RangeStatistics::Result expected(std::int64_t fromNs, std::int64_t toNs) {
        Store store(m_db.toStdString(), Store::Mode::ReadOnly);
        return RangeStatistics::compute(store, m_session, fromNs, toNs,
                                        RangeStatistics::kDefaultWindowNs, {m_gpu, m_cpu});
    }

    nlohmann::json cli(std::int64_t fromNs, std::int64_t toNs) {
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", m_db, "analyze", "--session", QString::number(m_session), "--range",
                 exactSeconds(fromNs) + ".." + exactSeconds(toNs), "--format", "json"});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            qFatal("tierscope analyze --range failed: %s", p.readAllStandardError().constData());
        return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
    }

    // The panel's numbers, in its result and in its table, against the core's and the CLI's.
    void checkPanel() {
        QVERIFY(m_panel->result());
        const auto& shown = *m_panel->result();
        const auto core = expected(shown.fromNs, shown.toNs);
        const auto json = cli(shown.fromNs, shown.toNs);
        QCOMPARE(shown.series.size(), std::size_t(2));
        for (const auto& s : shown.series) {
            const auto* e = core.find(s.metric.id);
            QVERIFY(e && e->now && s.now);
            QCOMPARE(s.now->count, e->now->count);
            QCOMPARE(s.now->min, e->now->min);
            QCOMPARE(s.now->mean, e->now->mean);
            QCOMPARE(s.now->p50, e->now->p50);
            QCOMPARE(s.now->p99, e->now->p99);
            QCOMPARE(s.now->last, e->now->last);
            QCOMPARE(s.meanChange.has_value(), e->meanChange.has_value());
            nlohmann::json printed;
            for (const auto& j : json["series"])
                if (j["metric_id"].get<std::int64_t>() == s.metric.id)
                    printed = j;
            QVERIFY(printed.is_object());
            QCOMPARE(printed["range"]["count"].get<std::size_t>(), s.now->count);
            QCOMPARE(printed["range"]["mean"].get<double>(), s.now->mean);
            QCOMPARE(printed["range"]["p50"].get<double>(), s.now->p50);
            QCOMPARE(printed["range"]["p99"].get<double>(), s.now->p99);
            QCOMPARE(printed["range"]["last"].get<double>(), s.now->last);
            if (s.meanChange)
                QCOMPARE(printed["mean_change"].get<double>(), *s.meanChange);
            bool found = false;
            for (int row = 0; row < m_panel->table()->rowCount(); ++row)
                if (m_panel->table()->item(row, 0)->data(Qt::UserRole).toLongLong() ==
                    s.metric.id) {
                    found = true;
                    // The exact figure behind the scaled text, and in its tooltip as the
                    // CLI prints it.
                    const auto* mean = m_panel->table()->item(row, 4);
                    QCOMPARE(mean->data(RangePanel::ExactRole).toDouble(), e->now->mean);
                    QVERIFY(mean->toolTip().startsWith(RangePanel::number(e->now->mean) + " "));
                    QCOMPARE(m_panel->table()->item(row, 6)->data(RangePanel::ExactRole).toDouble(),
                             e->now->p99);
                }
            QVERIFY(found);
        }
        QCOMPARE(shown.requests.count, core.requests.count);
        QCOMPARE(json["requests"]["count"].get<std::size_t>(), core.requests.count);
        QVERIFY(shown.requests.ttftP50S == core.requests.ttftP50S);
        QVERIFY(shown.shares == core.shares);
        for (const auto& [cls, share] : core.shares)
            QCOMPARE(json["shares"][BottleneckClassifier::name(cls)].get<double>(), share);
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("panel.db");
        const std::string db = m_db.toStdString();
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            info.host = "h";
            m_session = store.createSession(info);
            store.finishSession(m_session, kStart + 60 * kSecond);
        }
        {
            StoreWriter writer(db, {});
            const int gpu = writer.defineMetric(m_session, {"gpu/0/busy_pct", "percent"});
            const int cpu = writer.defineMetric(m_session, {"host/cpu/busy_pct", "percent"});
            for (int i = 0; i < 60; ++i) {
                writer.append(gpu, kStart + i * kSecond, gpuAt(i));
                writer.append(cpu, kStart + i * kSecond, cpuAt(i));
            }
            writer.stop();
        }
        Store store(db, Store::Mode::ReadWrite);
        for (const auto& m : store.metrics(m_session))
            (m.descriptor.path == "gpu/0/busy_pct" ? m_gpu : m_cpu) = m.id;
        m_run = store.createRun(m_session, "load", "{}", kStart + 20 * kSecond);
        std::vector<RequestRecord> requests;
        for (int i = 0; i < 10; ++i) {
            RequestRecord r;
            r.sendNs = kStart + (20 + i) * kSecond;
            r.ttftS = 0.1 * (i + 1);
            r.httpStatus = 200;
            requests.push_back(r);
        }
        store.addRequests(m_run, requests);
        store.finishRun(m_run, kStart + 30 * kSecond, "completed", "{}");

        m_view = std::make_unique<TimelineView>();
        m_view->setCharts(
            {{"gpu-busy", "GPU busy", ChartCatalog::Unit::Percent, {{m_gpu, "gpu 0"}}},
             {"host-cpu", "CPU busy", ChartCatalog::Unit::Percent, {{m_cpu, "cpu"}}}});
        m_view->setInteractive(true);
        m_view->setBounds(0, 60);
        m_view->setTimeRange(0, 60, "seconds");
        m_view->setData({{m_gpu, perSecond(gpuAt)}, {m_cpu, perSecond(cpuAt)}}, kStart);
        m_view->setSpans({{kStart + 20 * kSecond, kStart + 30 * kSecond, "load r1", "load",
                           TimelineSpan::Kind::Run, m_run, "load"}});
        m_view->resize(1000, 700);
        m_view->show();
        m_panel = std::make_unique<RangePanel>();
        m_panel->setSession(m_db, m_session);
        // As the main window wires them.
        connect(m_view.get(), &TimelineView::rangeSelected, m_panel.get(),
                [this](double a, double b) {
                    m_panel->setMetricIds(m_view->storedMetricIds());
                    m_panel->setRange(a, b);
                });
        connect(m_view.get(), &TimelineView::selectionCleared, m_panel.get(), &RangePanel::clear);
        for (auto* chart : m_view->charts())
            QTRY_VERIFY(chart->chart()->plotArea().width() > 200);
    }

    void cleanupTestCase() {
        QThreadPool::globalInstance()->waitForDone();
        m_view.reset();
        m_panel.reset();
    }

    void selectedBySlot() {
        QSignalSpy computed(m_panel.get(), &RangePanel::computed);
        m_view->selectRange(10, 40);
        QVERIFY(m_view->hasSelection());
        QVERIFY(computed.wait(30000));
        QCOMPARE(m_panel->result()->fromNs, 10 * kSecond);
        QCOMPARE(m_panel->result()->toNs, 40 * kSecond);
        checkPanel();
        const auto* gpu = m_panel->result()->find(m_gpu);
        QCOMPARE(gpu->now->mean, 24.5); // seconds 10..39
        QCOMPARE(m_panel->result()->requests.count, std::size_t(10));
        QVERIFY(m_panel->requestsText().contains("10 sent, 0 failed"));
        // Shown in the units the charts use: TTFT in ms, a percentage with its sign.
        QVERIFY2(m_panel->requestsText().contains("TTFT p50 550.00 ms, p99 991.00 ms"),
                 qPrintable(m_panel->requestsText()));
        for (int row = 0; row < m_panel->table()->rowCount(); ++row)
            if (m_panel->table()->item(row, 0)->data(Qt::UserRole).toLongLong() == m_gpu) {
                QCOMPARE(m_panel->table()->item(row, 1)->text(), QString("%"));
                QCOMPARE(m_panel->table()->item(row, 4)->text(), QString("24.5"));
            }
        // The band is on every chart, over the same x.
        const auto charts = m_view->charts();
        QVERIFY(!charts[0]->selectionRect().isEmpty());
        QCOMPARE(charts[0]->selectionRect().left(), charts[1]->selectionRect().left());
        // Escape clears the selection, the bands and the panel.
        QTest::keyClick(m_view.get(), Qt::Key_Escape);
        QVERIFY(!m_view->hasSelection());
        QVERIFY(charts[0]->selectionRect().isEmpty());
        QVERIFY(!m_panel->result());
        QCOMPARE(m_panel->table()->rowCount(), 0);
    }

    void selectedByShiftDrag() {
        auto* chart = m_view->charts().front();
        auto* viewport = viewOf(chart)->viewport();
        QSignalSpy selected(m_view.get(), &TimelineView::rangeSelected);
        QSignalSpy panned(chart, &TimelineChart::panned);
        QSignalSpy computed(m_panel.get(), &RangePanel::computed);
        QTest::mousePress(viewport, Qt::LeftButton, Qt::ShiftModifier, pointAt(chart, 15));
        QTest::mouseMove(viewport, pointAt(chart, 30));
        QVERIFY(!chart->selectionRect().isEmpty()); // drawn as it moves
        QTest::mouseMove(viewport, pointAt(chart, 45));
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::ShiftModifier, pointAt(chart, 45));
        QCOMPARE(panned.count(), 0); // a Shift+drag does not pan
        QCOMPARE(m_view->rangeStart(), 0.0);
        QCOMPARE(selected.count(), 1);
        const double pixel = 60.0 / chart->plotWidth();
        QVERIFY(std::abs(selected.first().at(0).toDouble() - 15) <= 2 * pixel);
        QVERIFY(std::abs(selected.first().at(1).toDouble() - 45) <= 2 * pixel);
        QVERIFY(computed.wait(30000));
        checkPanel();
        // A plain drag still pans (the whole session is in view: nowhere to go, but it asks).
        QTest::mousePress(viewport, Qt::LeftButton, {}, pointAt(chart, 30));
        QTest::mouseMove(viewport, pointAt(chart, 20));
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, pointAt(chart, 20));
        QVERIFY(panned.count() > 0);
        QCOMPARE(selected.count(), 1);
        m_view->clearSelection();
    }

    // Each chart's crosshair shows its own series' value at the one instant under the pointer.
    void linkedCrosshair() {
        auto* gpuChart = m_view->chart("gpu-busy");
        auto* cpuChart = m_view->chart("host-cpu");
        auto* viewport = viewOf(gpuChart)->viewport();
        const QPoint at = pointAt(gpuChart, 25);
        QMouseEvent move(QEvent::MouseMove, at, viewport->mapToGlobal(at), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &move);
        QVERIFY2(gpuChart->crosshairText().startsWith("gpu 0: 25"),
                 qPrintable(gpuChart->crosshairText()));
        QVERIFY2(cpuChart->crosshairText().startsWith("cpu: 50"),
                 qPrintable(cpuChart->crosshairText()));
    }

    // A double-click on a run selects exactly its span; elsewhere it still resets the zoom.
    void doubleClickSelectsARun() {
        auto* chart = m_view->charts().front();
        auto* viewport = viewOf(chart)->viewport();
        QSignalSpy computed(m_panel.get(), &RangePanel::computed);
        QSignalSpy runs(m_view.get(), &TimelineView::runSelected);
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, pointAt(chart, 25));
        QCOMPARE(runs.count(), 1);
        QVERIFY(m_view->hasSelection());
        QCOMPARE(m_view->selectionStart(), 20.0);
        QCOMPARE(m_view->selectionEnd(), 30.0);
        QCOMPARE(m_view->selectedRun(), qint64(m_run));
        QVERIFY(computed.wait(30000));
        QCOMPARE(m_panel->result()->fromNs, 20 * kSecond);
        QCOMPARE(m_panel->result()->toNs, 30 * kSecond);
        QCOMPARE(m_panel->result()->requests.count, std::size_t(10));
        checkPanel();
        m_view->setTimeRange(5, 55, "seconds");
        QTest::mouseDClick(viewport, Qt::LeftButton, {}, pointAt(chart, 50));
        QCOMPARE(m_view->rangeStart(), 0.0);
        QCOMPARE(m_view->rangeEnd(), 60.0);
        QCOMPARE(m_view->selectionStart(), 20.0); // the selection stays
    }
};

QTEST_MAIN(TestRangePanel)
#include "tst_rangepanel.moc"
