#include "collectors/storage/BlockDeviceNames.h"
#include "core/model/RequestRecord.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"
#include "ui/AppPalette.h"
#include "ui/ChartPickerDialog.h"
#include "ui/DevicesView.h"
#include "ui/MainWindow.h"
#include "ui/SavedLayouts.h"
#include "ui/experiment/RunTableModel.h"
#include "ui/experiment/RunsPanel.h"
#include "ui/feeds/ProcessIoPanel.h"
#include "ui/feeds/ProcessIoTableModel.h"
#include "ui/sessions/SessionBrowser.h"
#include "ui/sessions/SessionListModel.h"
#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/StatusColor.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <sys/resource.h>
#include <unistd.h>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;
constexpr std::int64_t kStart = 1'790'000'000LL * kSecond;

// One minute at 10 Hz: a CPU ramp, an NVMe/RDMA read rate and an engine TTFT; no GPU.
std::int64_t writeSession(const std::string& db) {
    std::int64_t id = 0;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.label = "recorded run";
        info.storageProfile = "nvmeof-rdma";
        info.host = "test";
        info.startNs = kStart;
        id = store.createSession(info);
        store.addDevices(
            id, {{"backend", "amd",
                  R"j({"state":"unavailable","reason":"rocm-smi could not initialise (no KFD)"})j"},
                 {"block", "nvme1n1", R"({"transport":"rdma","model":"FX100"})"}});
        store.finishSession(id, kStart + 60 * kSecond);
    }
    StoreWriter writer(db, {});
    const int cpu = writer.defineMetric(id, {"host/cpu/busy_pct", "percent", "gauge", "{}"});
    const int read = writer.defineMetric(
        id, {"block/nvme1n1/read_bytes_per_s", "bytes/s", "rate", R"({"transport":"rdma"})"});
    const int ttft = writer.defineMetric(id, {"engine/gpu1:8000/ttft_p50_s", "s", "gauge", "{}"});
    // The schema canary the recorder writes: this vLLM served TTFT, never LMCache's hits.
    const int served =
        writer.defineMetric(id, {"engine/gpu1:8000/served{role=ttft}", "1", "gauge", "{}"});
    const int missing = writer.defineMetric(
        id, {"engine/gpu1:8000/served{role=lmcache_hit_tokens}", "1", "gauge", "{}"});
    writer.append(served, kStart, 1);
    writer.append(missing, kStart, 0);
    for (int i = 0; i < 600; ++i) {
        const std::int64_t t = kStart + i * kSecond / 10;
        writer.append(cpu, t, i / 6.0);
        writer.append(read, t, 2e9 + 1e8 * std::sin(i / 10.0));
        writer.append(ttft, t, 0.25);
    }
    writer.stop();
    return id;
}

// The top-level group of the devices view with this title, if there is one.
QTreeWidgetItem* findGroup(QTreeWidget& view, const QString& title) {
    for (int i = 0; i < view.topLevelItemCount(); ++i)
        if (view.topLevelItem(i)->text(0) == title)
            return view.topLevelItem(i);
    return nullptr;
}

// A minute: storage at its ceiling with idle GPUs and slow first tokens, then busy GPUs.
std::int64_t writeBottleneckSession(const std::string& db) {
    std::int64_t id = 0;
    const std::int64_t start = kStart + 3600 * kSecond;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.label = "bottlenecks";
        info.startNs = start;
        id = store.createSession(info);
        // The drive's probe is its ceiling: the session's own busiest second is none.
        store.addDevices(id, {{"storage-probe", "nvme0n1",
                               R"({"read_bytes_per_s":5e9,"write_bytes_per_s":2e9,)"
                               R"("random_read_iops":1e6,"unloaded_read_s":8e-5})"}});
        store.finishSession(id, start + 60 * kSecond);
    }
    StoreWriter writer(db, {});
    const int bw =
        writer.defineMetric(id, {"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", "{}"});
    const int gpu = writer.defineMetric(id, {"gpu/0/busy_pct", "percent", "gauge", "{}"});
    const int ttft = writer.defineMetric(id, {"engine/e/ttft_p50_s", "s", "gauge", "{}"});
    // The engine's evidence that work waits on the saturated drive.
    const int waiting = writer.defineMetric(id, {"engine/e/requests_waiting", "1", "gauge", "{}"});
    for (int i = 0; i < 600; ++i) {
        const std::int64_t t = start + i * kSecond / 10;
        writer.append(bw, t, i < 300 ? 5e9 : 1e9);
        writer.append(gpu, t, i < 300 ? 20 : 95);
        writer.append(ttft, t, i < 300 ? 4.0 : 0.3);
        writer.append(waiting, t, i < 300 ? 6 : 0);
    }
    writer.stop();
    return id;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0;

    // Shows the window and waits until it has drawn the test session.
    bool showSession(MainWindow& window) {
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        return shown.wait(10000) && shown.first().first().toLongLong() == m_session;
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);             // QSettings in a scratch location
        QSettings("tierscope", "tierscope").remove("window"); // a size saved by a past run
        m_db = m_dir.filePath("ws.db");
        m_session = writeSession(m_db.toStdString());
    }

    void opensARecordedSessionWithItsChartsAndLegends() {
        MainWindow window({m_db, m_session, false, 300});
        QVERIFY(showSession(window));

        TimelineChart* cpu = window.timeline()->chart("host-cpu");
        QVERIFY(cpu && !cpu->isAbsent());
        QCOMPARE(cpu->legendNames(), QStringList{"CPU busy"});
        QVERIFY(!window.timeline()->tiles()->isVisible()); // "now" is the live view's
        QVERIFY(cpu->pointCount() > 100);
        // decimated: never more than two points per pixel column
        QVERIFY(cpu->pointCount() <= 2 * cpu->plotWidth() + 2);
        QCOMPARE(window.timeline()->chart("storage")->legendNames(),
                 QStringList{"nvme1n1 read (NVMe/RDMA)"});
        QCOMPARE(window.timeline()->chart("engine-ttft")->legendNames(),
                 QStringList{"gpu1:8000 TTFT p50"});

        // the session browser lists it under its profile
        const QModelIndex index = window.sessionModel()->indexOfSession(m_session);
        QVERIFY(index.isValid());
        QCOMPARE(index.parent().data().toString(), QString("nvmeof-rdma"));
        QVERIFY(window.devicesView()->topLevelItemCount() >= 5);
        // The engine's schema canary: what it never served is said by name, never a zero.
        QTreeWidgetItem* roles = nullptr;
        for (int i = 0; i < window.devicesView()->topLevelItemCount(); ++i)
            if (window.devicesView()->topLevelItem(i)->text(0) == "Engine metric roles")
                roles = window.devicesView()->topLevelItem(i);
        QVERIFY(roles);
        QCOMPARE(roles->childCount(), 1);
        QCOMPARE(roles->child(0)->text(0), QString("gpu1:8000"));
        QCOMPARE(roles->child(0)->text(1), QString("served: 1   not_served: LMCache hit tokens"));
    }

    void absentSourcesShowTheirReasonInPlace() {
        MainWindow window({m_db, m_session, false, 300});
        QVERIFY(showSession(window));
        TimelineChart* gpu = window.timeline()->chart("gpu-busy");
        QVERIFY(gpu && gpu->isAbsent());
        QVERIFY2(gpu->absentText().contains("No AMD GPU: rocm-smi could not initialise (no KFD)"),
                 qPrintable(gpu->absentText()));
        QVERIFY(window.timeline()->chart("kv-cache")->absentText().contains("--engine URL"));
    }

    void zoomReloadsTheRangeAndLegendTogglesASeries() {
        MainWindow window({m_db, m_session, false, 300});
        QVERIFY(showSession(window));
        TimelineChart* cpu = window.timeline()->chart("host-cpu");
        const int before = cpu->pointCount();
        window.timeline()->setTimeRange(10, 20, "s");
        emit window.timeline()->rangeChanged(10, 20);
        // 10 s at 10 Hz: about 100 raw samples, each its own bucket
        QTRY_VERIFY_WITH_TIMEOUT(cpu->pointCount() > 0 && cpu->pointCount() <= 110, 5000);
        QVERIFY(cpu->pointCount() < before);

        cpu->setCrosshair(15.0);
        QVERIFY2(cpu->crosshairText().startsWith("CPU busy: "), qPrintable(cpu->crosshairText()));
        cpu->setCrosshair(std::nan(""));
        QVERIFY(cpu->crosshairText().isEmpty());

        auto* marker = cpu->chart()->legend()->markers().first();
        emit marker->clicked();
        QVERIFY(!cpu->seriesVisible(0));
        emit marker->clicked();
        QVERIFY(cpu->seriesVisible(0));
    }

    // Zoom out stops at the whole session, a drag stops at its ends, and the reset (Ctrl+0 or a
    // double-click) returns to the whole session.
    void zoomAndPanStayInsideTheSessionAndReset() {
        MainWindow window({m_db, m_session, false, 300});
        QVERIFY(showSession(window));
        TimelineView* timeline = window.timeline();
        TimelineChart* cpu = timeline->chart("host-cpu");
        QVERIFY(timeline->resetZoomAction()->isEnabled());
        emit cpu->zoomed(4.0, 30); // out, far past the session
        QCOMPARE(timeline->rangeStart(), 0.0);
        QCOMPARE(timeline->rangeEnd(), 60.0);
        emit cpu->zoomed(0.25, 30); // in: 22.5 .. 37.5
        QCOMPARE(timeline->rangeEnd() - timeline->rangeStart(), 15.0);
        emit cpu->panned(-100); // drag far left: stops at the start
        QCOMPARE(timeline->rangeStart(), 0.0);
        QCOMPARE(timeline->rangeEnd(), 15.0);
        emit cpu->panned(1000);
        QCOMPARE(timeline->rangeStart(), 45.0);
        QCOMPARE(timeline->rangeEnd(), 60.0);
        for (int i = 0; i < 40; ++i)
            emit cpu->zoomed(0.5, 50);
        QVERIFY(timeline->rangeEnd() - timeline->rangeStart() >= 1.0 - 1e-9);
        QSignalSpy changed(timeline, &TimelineView::rangeChanged);
        emit cpu->resetRequested();
        QCOMPARE(timeline->rangeStart(), 0.0);
        QCOMPARE(timeline->rangeEnd(), 60.0);
        QCOMPARE(changed.count(), 1); // the whole session is read again
        QCOMPARE(TimelineView::clampRange(-5, 5, 0, 60, 1), std::make_pair(0.0, 10.0));
        QCOMPARE(TimelineView::clampRange(10, 10.2, 0, 60, 1), std::make_pair(9.6, 10.6));
        window.showLive(); // the live view has no session to reset to
        QVERIFY(!timeline->resetZoomAction()->isEnabled());
    }

    // The charts tell the story in order (TTFT, then storage, then host) and three fit on a
    // 1280x720 screen without scrolling.
    void chartsInTheStorysOrderThreeToA720pScreen() {
        MainWindow window({m_db, m_session, false, 300});
        window.resize(1280, 720);
        QVERIFY(showSession(window));
        const auto& charts = window.timeline()->charts();
        QStringList ids;
        for (const auto* c : charts)
            if (!c->isAbsent())
                ids << QString::fromStdString(c->spec().id);
        QCOMPARE(ids, (QStringList{"engine-ttft", "storage", "host-cpu"}));
        auto* scroll = window.timeline()->findChild<QScrollArea*>();
        QVERIFY(scroll);
        QTRY_VERIFY_WITH_TIMEOUT(charts.at(2)->geometry().bottom() <= scroll->viewport()->height(),
                                 5000);
        QVERIFY(charts.at(2)->height() >= 150);
        // The KV tiers' bandwidth right under the block devices that carry it, then the TTFT's
        // parts and the token sources, before the KV cache and the host.
        QCOMPARE(TimelineView::storyRank("kv-tiers"), TimelineView::storyRank("storage") + 1);
        QVERIFY(TimelineView::storyRank("ttft-breakdown") < TimelineView::storyRank("kv-cache"));
        QVERIFY(TimelineView::storyRank("kv-token-sources") < TimelineView::storyRank("host-cpu"));
    }

    // An experiment session: its runs shaded on every chart, coloured by arm, a warm-up and an
    // INVALID run labelled as such, every stored event drawn (a clock step too); a click on a
    // run selects it and zooms to it.
    void runsAndEventsAreDrawnOnEveryChartAndAClickSelectsARun() {
        const QString db = m_dir.filePath("arms.db");
        const auto id = writeSession(db.toStdString());
        std::int64_t second = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            const auto warm =
                store.createRun(id, "kv-restore", "{}", kStart + 1 * kSecond, "exp", "disk", 0);
            store.finishRun(warm, kStart + 5 * kSecond, "warmup", "{}");
            const auto a =
                store.createRun(id, "kv-restore", "{}", kStart + 10 * kSecond, "exp", "disk", 1);
            store.finishRun(a, kStart + 25 * kSecond, "completed", "{}");
            second =
                store.createRun(id, "kv-restore", "{}", kStart + 30 * kSecond, "exp", "shm", 1);
            store.finishRun(
                second, kStart + 45 * kSecond, "completed",
                "{\"validity\":[{\"status\":\"fail\",\"detail\":\"B is served by A\"}]}");
            store.addEvent(id, kStart + 28 * kSecond, "clock-step", "wall clock stepped -0.8 s");
            store.addEvent(id, kStart + 2 * kSecond, "experiment-plan", "name = \"exp\"\n...");
            store.addEvent(id, kStart + 3 * kSecond, "engine-start", "disk: vllm serve ...");
        }
        MainWindow window({db, id, false, 60});
        window.resize(1400, 900);
        QVERIFY(showSession(window));
        const auto& spans = window.timeline()->spans();
        QCOMPARE(spans.size(), std::size_t(3));
        QCOMPARE(spans[0].kind, TimelineSpan::Kind::Warmup);
        QCOMPARE(spans[1].label, QString("disk r1"));
        QCOMPARE(spans[2].kind, TimelineSpan::Kind::Invalid);
        QCOMPARE(spans[2].label, QString("INVALID shm r1"));
        QVERIFY(spans[2].detail.contains("B is served by A"));
        const auto& markers = window.timeline()->markers(); // not the plan's TOML
        QCOMPARE(markers.size(), std::size_t(2));
        QCOMPARE(markers[0].text, QString("engine-start: disk"));
        QVERIFY(markers[0].routine); // a tick, not a labelled line
        QCOMPARE(markers[1].text, QString("clock-step: wall clock stepped -0.8 s"));
        QVERIFY(!markers[1].routine);
        int drawn = 0;
        for (auto* c : window.timeline()->charts()) {
            if (c->isAbsent())
                continue;
            QTRY_COMPARE_WITH_TIMEOUT(c->spanRects().size(), std::size_t(3), 5000);
            QVERIFY(c->spanLabels().contains("disk r1"));
            QVERIFY(c->markerLabels().contains("clock-step: wall clock stepped -0.8 s"));
            QVERIFY(!c->markerLabels().contains("engine-start: disk"));
            ++drawn;
        }
        QCOMPARE(drawn, 3);

        TimelineChart* cpu = window.timeline()->chart("host-cpu");
        QSignalSpy selected(window.timeline(), &TimelineView::runSelected);
        const QRectF rect = cpu->spanRects().at(2);
        auto* view = cpu->chart()->scene()->views().front();
        const QPoint at = view->mapFromScene(rect.center());
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toLongLong(), second);
        QCOMPARE(window.timeline()->selectedRun(), second);
        QVERIFY(window.timeline()->rangeStart() >= 29 && window.timeline()->rangeStart() < 30);
        QVERIFY(window.timeline()->rangeEnd() > 45 && window.timeline()->rangeEnd() <= 46);
        window.showLive();
        QVERIFY(window.timeline()->spans().empty());
    }

    // A load session shows its requests: TTFT per request at its send and at its scheduled
    // send (a fixed rate), and output tokens/s; first among the charts, and kept on a zoom.
    void aLoadSessionShowsItsRequests() {
        const QString db = m_dir.filePath("load.db");
        const auto id = writeSession(db.toStdString());
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            const auto run = store.createRun(id, "load", "{}", kStart, "", "", 0);
            std::vector<RequestRecord> requests;
            for (int i = 0; i < 100; ++i) {
                RequestRecord r;
                r.index = i;
                r.scheduledNs = kStart + i * kSecond / 2;
                r.sendNs = r.scheduledNs + (i >= 50 ? kSecond / 10 : 0); // the client fell behind
                r.ttftS = 0.2;
                r.e2eS = 1.0;
                r.outputTokens = 32;
                r.httpStatus = 200;
                requests.push_back(r);
            }
            store.addRequests(run, requests);
            store.finishRun(run, kStart + 51 * kSecond, "completed", "{}");
        }
        MainWindow window({db, id, false, 60});
        QVERIFY(showSession(window));
        TimelineChart* ttft = window.timeline()->chart("load-ttft");
        QVERIFY(ttft && !ttft->isAbsent());
        QCOMPARE(window.timeline()->charts().front(), ttft);
        QCOMPARE(ttft->legendNames(),
                 (QStringList{"TTFT from the actual send", "TTFT from the scheduled send"}));
        QCOMPARE(ttft->pointCount(), 200); // one point per request and series
        ttft->setCrosshair(40.0);          // request 80: sent 0.1 s late
        QCOMPARE(
            ttft->crosshairText(),
            QString("TTFT from the actual send: 200 ms\nTTFT from the scheduled send: 300 ms"));
        TimelineChart* tokens = window.timeline()->chart("load-throughput");
        QVERIFY(tokens && !tokens->isAbsent());
        tokens->setCrosshair(20.5); // two requests finish each second: 64 tokens
        QCOMPARE(tokens->crosshairText(), QString("output tokens/s (completed): 64.0 tok/s"));
        window.timeline()->setTimeRange(10, 20, "s");
        emit window.timeline()->rangeChanged(10, 20);
        QVERIFY(!window.sessionSettled()); // a range read is due
        QTRY_VERIFY_WITH_TIMEOUT(window.sessionSettled(), 30000);
        QCOMPARE(ttft->pointCount(), 200); // the range reload keeps the requests
        // One chart exports on its own, at the size asked; a chart the view lacks is an error.
        QSignalSpy exported(&window, &MainWindow::viewExported);
        const QString png = m_dir.filePath("load-ttft.png");
        window.exportChart("load-ttft", png, QSize(900, 300));
        QVERIFY(exported.wait(20000));
        QCOMPARE(exported.last().at(1).toString(), QString());
        const QImage image(png);
        QCOMPARE(image.size(), QSize(900, 300));
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 3, "the exported chart is blank");
        window.exportChart("no-such-chart", m_dir.filePath("x.png"), QSize(900, 300));
        QVERIFY(exported.last().at(1).toString().contains("No chart \"no-such-chart\""));
        QVERIFY(!QFile::exists(m_dir.filePath("x.png")));
        // The runs panel: the run's row, its CDF and its requests from the run's start.
        auto* runs = window.findChild<QDockWidget*>("runs");
        QVERIFY(runs && !runs->isHidden());
        QCOMPARE(window.runsPanel()->model()->rowCount(), 1);
        QCOMPARE(window.runsPanel()->model()->rows().front().ttftS.size(), std::size_t(100));
        QCOMPARE(window.runsPanel()->cdfChart()->series().size(), 1);
        window.showLive();
        QVERIFY(runs->isHidden());
        QCOMPARE(window.runsPanel()->model()->rowCount(), 0);
    }

    // A closed loop stamps each request's schedule with its send: no second TTFT series.
    void aClosedLoopSessionHasOneTtftSeries() {
        const QString db = m_dir.filePath("closed.db");
        const auto id = writeSession(db.toStdString());
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            const auto run = store.createRun(id, "load", "{}", kStart, "", "", 0);
            std::vector<RequestRecord> requests(10);
            for (int i = 0; i < 10; ++i) {
                requests[i].scheduledNs = requests[i].sendNs = kStart + i * kSecond;
                requests[i].ttftS = 0.2;
                requests[i].httpStatus = 200;
            }
            store.addRequests(run, requests);
            store.finishRun(run, kStart + 11 * kSecond, "completed", "{}");
        }
        MainWindow window({db, id, false, 60});
        QVERIFY(showSession(window));
        TimelineChart* ttft = window.timeline()->chart("load-ttft");
        QVERIFY(ttft);
        QCOMPARE(ttft->legendNames(), QStringList{"TTFT from the actual send"});
    }

    // A session opened at start-up is read before the window is laid out; once it is, the data
    // is read again for the real plot width (a bucket or more per column), not the guess.
    void aSessionOpenedAtStartUpIsReadForTheLaidOutWidth() {
        const QString db = m_dir.filePath("wide.db");
        std::int64_t id = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.label = "ten minutes";
            info.startNs = kStart;
            id = store.createSession(info);
            store.finishSession(id, kStart + 600 * kSecond);
        }
        {
            StoreWriter writer(db.toStdString(), {});
            const int ttft = writer.defineMetric(id, {"engine/e/ttft_p50_s", "s", "gauge", "{}"});
            for (int i = 0; i < 6000; ++i) // flat: one point per bucket
                writer.append(ttft, kStart + i * kSecond / 10, 0.25);
            writer.stop();
        }
        MainWindow window({db, id, false, 300});
        window.resize(1800, 1000);
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        TimelineChart* chart = window.timeline()->chart("engine-ttft");
        QVERIFY(chart);
        QTRY_VERIFY_WITH_TIMEOUT(chart->plotWidth() > 1000, 5000);
        QTRY_VERIFY2_WITH_TIMEOUT(
            chart->pointCount() >= 9 * chart->plotWidth() / 10,
            qPrintable(
                QString("%1 points on %2 px").arg(chart->pointCount()).arg(chart->plotWidth())),
            5000);
    }

    // At QT_SCALE_FACTOR=2 a 1280x720 screen is 640x360: the window must still fit on it.
    void theWindowFitsTheScreen() {
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize screen = window.screen()->availableGeometry().size();
        QVERIFY2(window.width() <= screen.width() && window.height() <= screen.height(),
                 qPrintable(QString("%1x%2 on %3x%4")
                                .arg(window.width())
                                .arg(window.height())
                                .arg(screen.width())
                                .arg(screen.height())));
    }

    void bottleneckBandsOverARecordedSession() {
        const auto id = writeBottleneckSession(m_db.toStdString());
        MainWindow window({m_db, id, false, 300});
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        const auto* band = window.timeline()->bottleneckBand();
        QVERIFY(band->isVisible());
        const auto& spans = band->spans();
        QCOMPARE(spans.size(), std::size_t(2));
        QCOMPARE(spans[0].cls, BottleneckClassifier::Class::StorageBound);
        QCOMPARE(spans[1].cls, BottleneckClassifier::Class::GpuComputeBound);
        QVERIFY(std::abs(spans[0].x1 - 30.0) < 1.0); // the change, half-way through
        QVERIFY2(band->textAt(10).startsWith("storage-bound: nvme0n1 5.0 GB/s = 100 % of its"),
                 qPrintable(band->textAt(10)));
        QVERIFY2(band->textAt(50).startsWith("gpu-compute-bound: GPU 0 busy 95 %"),
                 qPrintable(band->textAt(50)));
        // Beside the lane, the whole session in words: half storage-bound, half GPU-bound.
        const QLabel* range = window.timeline()->rangeLabel();
        QVERIFY(range->isVisible());
        QVERIFY2(range->text().startsWith("In view: storage-bound 50 %, gpu-compute-bound 50 %."),
                 qPrintable(range->text()));
        // The plots line up with each other although their y labels differ in width ("100"
        // against "4"), and the lane with them.
        const auto* first = window.timeline()->charts().front();
        QVERIFY(!first->isAbsent());
        auto plots = [&] { // every laid-out plot
            std::vector<QRect> out;
            for (const auto* c : window.timeline()->charts()) {
                const QRect r = c->plotRectIn(window.timeline());
                if (!c->isAbsent() && r.width() > 200)
                    out.push_back(r);
            }
            return out;
        };
        // Margins are whole pixels and label widths are not: one pixel is the resolution.
        auto aligned = [&] {
            const auto p = plots();
            return p.size() == 4 && std::all_of(p.begin(), p.end(), [&](const QRect& r) {
                       return std::abs(p[0].left() - r.left()) <= 1 &&
                              std::abs(p[0].right() - r.right()) <= 1;
                   });
        };
        // The drive, GPU busy, engine TTFT and waiting requests.
        QTRY_VERIFY_WITH_TIMEOUT(aligned(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(
            first->plotRectIn(window.timeline()).left(),
            band->mapTo(window.timeline(), QPoint(0, 0)).x() + band->plotLeft(), 5000);
        QCOMPARE(band->plotWidth(), first->plotRectIn(window.timeline()).width());
        if (!qEnvironmentVariableIsEmpty("TIERSCOPE_SCREENSHOTS"))
            window.grab().save(qEnvironmentVariable("TIERSCOPE_SCREENSHOTS") + "/bands.png");
    }

    // The workspace's filesystem fills up (a file-size limit here): the recording stops, the
    // window says why, and what was committed stays readable.
    void aFullDiskStopsTheRecordingAndSaysSo() {
        const QString db = m_dir.filePath("full.db");
        std::signal(SIGXFSZ, SIG_IGN); // a failed write, not a killed process
        rlimit old{};
        QVERIFY(::getrlimit(RLIMIT_FSIZE, &old) == 0);
        rlimit capped = old;
        capped.rlim_cur = 200 * 1024;
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &capped) == 0);
        qint64 id = 0;
        {
            MainWindow window({db, 0, true, 60});
            QSignalSpy started(&window, &MainWindow::recordingStarted);
            QSignalSpy stopped(&window, &MainWindow::recordingStopped);
            window.show();
            QVERIFY(started.wait(15000));
            id = started.first().first().toLongLong();
            QVERIFY(stopped.wait(60000));
            QVERIFY2(window.statusBar()->currentMessage().contains("Recording stopped:"),
                     qPrintable(window.statusBar()->currentMessage()));
            QVERIFY(window.statusBar()->currentMessage().contains(
                QString("kept in session %1").arg(id)));
        }
        QVERIFY(::setrlimit(RLIMIT_FSIZE, &old) == 0);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        auto check = store.db().prepare("PRAGMA integrity_check");
        QVERIFY(check.step());
        QCOMPARE(check.columnText(0), std::string("ok"));
        QVERIFY(store.sampleCount(id) > 0);
    }

    // Past sessions offer their profiles, but a new live session is filed under what the user
    // typed, or none: not under the first profile the list happened to add.
    void aLiveSessionGetsTheTypedProfileOrNone() {
        const QString db = m_dir.filePath("profile.db");
        writeSession(db.toStdString()); // profile "nvmeof-rdma"
        MainWindow window({db, 0, false, 60});
        QSignalSpy listed(&window, &MainWindow::sessionsRefreshed);
        window.show();
        QVERIFY(listed.wait(10000));
        auto* profile = window.findChild<QComboBox*>("storageProfile");
        QVERIFY(profile);
        QVERIFY(profile->findText("nvmeof-rdma") >= 0);
        QCOMPARE(profile->currentText(), QString());

        QSignalSpy started(&window, &MainWindow::recordingStarted);
        QSignalSpy stopped(&window, &MainWindow::recordingStopped);
        window.startRecording();
        QVERIFY(started.wait(15000));
        const qint64 id = started.first().first().toLongLong();
        // The window's own recording lists as "recording", as `tierscope sessions` says.
        const auto duration = [&window](qint64 session) {
            const QModelIndex at = window.sessionModel()->indexOfSession(session);
            return at.isValid()
                       ? window.sessionModel()->index(at.row(), 2, at.parent()).data().toString()
                       : QString();
        };
        window.refreshSessions();
        QTRY_COMPARE_WITH_TIMEOUT(duration(id), QString("recording"), 10000);
        window.stopRecording();
        QVERIFY(stopped.wait(10000));
        {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            QCOMPARE(store.session(id)->storageProfile, std::string());
        }

        profile->setEditText("local-nvme");
        window.refreshSessions();
        QVERIFY(listed.wait(10000));
        QCOMPARE(profile->currentText(), QString("local-nvme"));
    }

    // File, View, Tools and Help with the standard shortcuts; the window comes back where it
    // was; the view exports as PNG, SVG and PDF at the chosen size.
    void desktopConventions() {
        {
            MainWindow window({m_db, m_session, false, 300});
            QVERIFY(showSession(window));
            QStringList menus;
            for (auto* a : window.menuBar()->actions())
                menus << a->text().remove('&');
            QCOMPARE(menus, (QStringList{"File", "View", "Tools", "Help"}));
            const QString keys = window.shortcutList();
            for (const auto& expected :
                 {QString("Ctrl+Q\tQuit"), QString("Ctrl+,\tSettings"), QString("Ctrl+K\tCompare"),
                  QString("Ctrl+M\tMarker"), QString("Ctrl+R\tRecord")})
                QVERIFY2(keys.contains(expected), qPrintable(keys));
            QVERIFY(keys.contains("About") == false); // no shortcut, but in the Help menu
            bool about = false;
            for (auto* menu : window.menuBar()->findChildren<QMenu*>())
                for (auto* a : menu->actions())
                    about = about || a->text().remove('&') == "About tierscope";
            QVERIFY(about);

            QSignalSpy exported(&window, &MainWindow::viewExported);
            // Every chart under a title block, 1280 pixels wide; the height follows.
            window.exportView(m_dir.filePath("view.png"), 1280);
            QVERIFY(exported.wait(30000));
            QCOMPARE(exported.last().at(1).toString(), QString());
            const QImage view(m_dir.filePath("view.png"));
            QCOMPARE(view.width(), 1280);
            QVERIFY(view.height() > 300);
            window.exportView(m_dir.filePath("view.svg"));
            QVERIFY(exported.wait(30000));
            QFile svg(m_dir.filePath("view.svg"));
            QVERIFY(svg.open(QIODevice::ReadOnly) && svg.size() > 1000);
            QVERIFY(svg.readAll().contains("drawn by tierscope"));
            window.exportView(m_dir.filePath("view.pdf"), 1280, 300);
            QVERIFY(exported.wait(30000));
            QVERIFY(QFile(m_dir.filePath("view.pdf")).size() > 500);

            window.resize(760, 560);
            QTRY_COMPARE_WITH_TIMEOUT(window.size(), QSize(760, 560), 5000);
        }
        {
            MainWindow again({m_db, m_session, false, 300});
            QCOMPARE(again.size(), QSize(760, 560));
        }
        QSettings("tierscope", "tierscope").remove("window"); // the other tests' default size
    }

    // A CLI command records into the workspace while the window is open: the list shows the
    // new session without a click, and the selected session stays selected.
    void theSessionListFollowsExternalWrites() {
        const QString db = m_dir.filePath("external.db");
        const auto first = writeSession(db.toStdString());
        MainWindow window({db, first, false, 60});
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        QVERIFY(window.findChild<QTreeView*>("sessionTree"));
        QCOMPARE(window.sessionBrowser()->currentSession(), first);

        std::int64_t second = 0;
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.label = "from the CLI";
            info.storageProfile = "nvmeof-rdma";
            info.startNs = kStart + 7200 * kSecond;
            second = store.createSession(info);
        }
        QTRY_VERIFY_WITH_TIMEOUT(window.sessionModel()->indexOfSession(second).isValid(), 20000);
        QCOMPARE(window.sessionBrowser()->currentSession(), first);
    }

    // The theme colours the whole application, docks and tables included, not the chart
    // panels alone; Light brings a light palette back whatever the platform's is.
    void theThemeColoursTheWholeApplication() {
        MainWindow window({m_dir.filePath("theme.db"), 0, false, 60});
        Settings settings = Settings::load();
        const auto before = settings.theme;
        settings.theme = Settings::Theme::Dark;
        window.setSettings(settings);
        QVERIFY(AppPalette::isDark(QApplication::palette()));
        QTRY_VERIFY(AppPalette::isDark(window.sessionBrowser()->palette()));
        QTRY_VERIFY(window.runsPanel()->table()->palette().color(QPalette::Base).lightness() < 128);
        QCOMPARE(window.runsPanel()->cdfChart()->theme(), QChart::ChartThemeDark);
        settings.theme = Settings::Theme::Light;
        window.setSettings(settings);
        QVERIFY(!AppPalette::isDark(QApplication::palette()));
        QTRY_VERIFY(!AppPalette::isDark(window.sessionBrowser()->palette()));
        settings.theme = before;
        window.setSettings(settings);
    }

    // "Redraw the live view every" sets the live frame period, kept for the next window; 0
    // (every pixel) still waits for the display's refresh.
    // A window closed with a session's Runs and Range docks open comes back live without them:
    // they would stand empty over the live charts.
    void sessionDocksDoNotComeBackEmptyInTheLiveView() {
        {
            MainWindow window({m_dir.filePath("docks.db"), 0, false, 60});
            window.show();
            window.rangeDock()->show();
            QVERIFY(window.rangeDock()->isVisible());
        } // its state is saved as it closes
        MainWindow again({m_dir.filePath("docks.db"), 0, false, 60});
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.rangeDock()->isVisible());
    }

    void theRedrawPeriodPacesTheLiveView() {
        MainWindow window({m_dir.filePath("redraw.db"), 0, false, 60});
        QCOMPARE(window.liveRedrawPeriodNs(), std::int64_t{Settings::load().redrawMs} * 1'000'000);
        Settings settings = Settings::load();
        const int before = settings.redrawMs;
        settings.redrawMs = 1500;
        window.setSettings(settings);
        QCOMPARE(window.liveRedrawPeriodNs(), 1'500'000'000LL);
        QCOMPARE(Settings::load().redrawMs, 1500);
        settings.redrawMs = 0;
        window.setSettings(settings);
        QVERIFY(window.liveRedrawPeriodNs() > 0);
        QVERIFY(window.liveRedrawPeriodNs() <= 1'000'000'000LL / 30);
        settings.redrawMs = before;
        window.setSettings(settings);
    }

    // View > Charts: a chart hidden, and a chart made of a metric that no default chart shows
    // (IOPS); both stay for the next window (the current layout), and a named layout saved.
    void chooseWhatIsShown() {
        SavedLayouts::setCurrent({});
        const QString db = m_dir.filePath("layout.db");
        const auto id = writeSession(db.toStdString());
        {
            StoreWriter writer(db.toStdString(), {});
            const int iops =
                writer.defineMetric(id, {"block/nvme1n1/read_iops", "1/s", "rate", "{}"});
            for (int i = 0; i < 60; ++i)
                writer.append(iops, kStart + i * kSecond, 1000.0 + i);
            writer.stop();
        }
        auto opened = [&](MainWindow& w) {
            QSignalSpy shown(&w, &MainWindow::sessionShown);
            w.show();
            return shown.wait(10000);
        };
        MainWindow window({db, id, false, 60});
        QVERIFY(opened(window));
        QVERIFY(window.timeline()->chart("host-cpu"));
        QVERIFY(!window.timeline()->chart("custom-1"));

        auto* picker = window.pickCharts();
        QListWidgetItem* cpu = nullptr;
        for (int row = 0; row < picker->chartList()->count(); ++row)
            if (picker->chartList()->item(row)->text().endsWith("(host-cpu)"))
                cpu = picker->chartList()->item(row);
        QVERIFY(cpu && cpu->checkState() == Qt::Checked);
        cpu->setCheckState(Qt::Unchecked);
        const auto found = picker->metricTree()->findItems("block/nvme1n1/read_iops",
                                                           Qt::MatchExactly | Qt::MatchRecursive);
        QCOMPARE(found.size(), 1);
        found.front()->setCheckState(0, Qt::Checked);
        picker->filterEdit()->setText("iops"); // the others are hidden, this one stays
        QVERIFY(!found.front()->isHidden());
        const auto cpuMetric = picker->metricTree()->findItems(
            "host/cpu/busy_pct", Qt::MatchExactly | Qt::MatchRecursive);
        QVERIFY(cpuMetric.size() == 1 && cpuMetric.front()->isHidden());
        picker->titleEdit()->setText("Read IOPS");
        picker->addPicked();
        QVERIFY(
            !picker->chartList()->findItems("Read IOPS  (custom-1)", Qt::MatchExactly).isEmpty());
        QSignalSpy reopened(&window, &MainWindow::sessionShown);
        picker->accept();
        QVERIFY(reopened.wait(10000));
        QVERIFY(!window.timeline()->chart("host-cpu"));
        TimelineChart* iops = window.timeline()->chart("custom-1");
        QVERIFY(iops && !iops->isAbsent());
        QCOMPARE(iops->spec().title, std::string("Read IOPS"));
        QCOMPARE(iops->legendNames(), QStringList{"block/nvme1n1/read_iops"});
        QTRY_VERIFY(iops->pointCount() > 0);
        QVERIFY(window.chartLayout().hidden.contains("host-cpu"));
        QVERIFY(SavedLayouts::current() == window.chartLayout());

        // A series switched off in a legend stays off in the next window.
        TimelineChart* storage = window.timeline()->chart("storage");
        QVERIFY(storage);
        const QString name = storage->legendNames().front();
        emit storage->chart()->legend()->markers().front()->clicked();
        QVERIFY(!storage->seriesVisible(0));
        QVERIFY(SavedLayouts::current().hiddenSeries.at("storage").contains(name.toStdString()));

        QVERIFY(SavedLayouts::save("io", window.chartLayout()));
        QVERIFY(!SavedLayouts::save("a/b", window.chartLayout())); // one key, one layout
        QVERIFY(SavedLayouts::names().contains("io"));
        QVERIFY(*SavedLayouts::load("io") == window.chartLayout());
        QVERIFY(SavedLayouts::load(" io ") == SavedLayouts::load("io")); // the name as saved
        {
            MainWindow next({db, id, false, 60});
            QVERIFY(opened(next));
            QVERIFY(next.timeline()->chart("custom-1"));
            QVERIFY(!next.timeline()->chart("host-cpu"));
            QVERIFY(!next.timeline()->chart("storage")->seriesVisible(0));
        }
        // The default layout brings every chart back.
        window.setChartLayout({});
        QVERIFY(reopened.wait(10000));
        QVERIFY(window.timeline()->chart("host-cpu"));
        QVERIFY(!window.timeline()->chart("custom-1"));
        QVERIFY(window.timeline()->chart("storage")->seriesVisible(0));
        SavedLayouts::remove("io");
        QVERIFY(!SavedLayouts::names().contains("io"));
    }

    // Status text (a run's "failed", a significant change, INVALID) stays readable in both
    // themes: the light theme's #c62828 on the dark base had a contrast of 2.3, under the 4.5
    // that WCAG asks of text; and white stays readable on every badge.
    void statusColoursAreReadableInBothThemes() {
        const QPalette palettes[] = {AppPalette::light(), AppPalette::dark()};
        for (const auto kind :
             {StatusColor::Kind::Good, StatusColor::Kind::Bad, StatusColor::Kind::Caution,
              StatusColor::Kind::Changed, StatusColor::Kind::Muted}) {
            for (const auto& palette : palettes) {
                const QColor base = palette.color(QPalette::Base);
                const double c = StatusColor::contrast(StatusColor::text(kind, palette), base);
                QVERIFY2(c >= 4.5,
                         qPrintable(QString("%1 on %2: %3")
                                        .arg(StatusColor::text(kind, palette).name(), base.name())
                                        .arg(c)));
            }
            QVERIFY(StatusColor::contrast(Qt::white, StatusColor::fill(kind)) >= 4.5);
        }
        // The reference points of the ratio: black on white is 21, a colour on itself 1.
        QCOMPARE(StatusColor::contrast(Qt::black, Qt::white), 21.0);
        QCOMPARE(StatusColor::contrast(QColor("#c62828"), QColor("#c62828")), 1.0);
        // The case that was wrong: the light red on the dark base.
        QVERIFY(StatusColor::contrast(QColor("#c62828"), AppPalette::dark().color(QPalette::Base)) <
                4.5);
    }

    // An engine URL entered in Settings reaches the running recording (which restarts with it),
    // and the engine charts stop telling the user to add one.
    void aNewEngineUrlReachesTheRecording() {
        const QString db = m_dir.filePath("engine.db");
        MainWindow window({db, 0, true, 60});
        QSignalSpy started(&window, &MainWindow::recordingStarted);
        window.show();
        QVERIFY(started.wait(15000));
        const qint64 first = started.first().first().toLongLong();
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->chart("engine-ttft"), 10000);
        QVERIFY(window.timeline()->chart("engine-ttft")->absentText().contains("Settings"));

        Settings settings = Settings::load();
        const QString url = "http://127.0.0.1:1/metrics"; // nothing listens there
        settings.engineUrls = {url};
        window.setSettings(settings);
        QVERIFY(started.wait(15000));
        const qint64 second = started.last().first().toLongLong();
        QVERIFY(second != first);
        auto engineText = [&] {
            auto* c = window.timeline()->chart("engine-ttft");
            return c ? c->absentText() : QString();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(engineText().contains("Cannot scrape " + url),
                                  qPrintable(engineText()), 15000);
        QVERIFY(!engineText().contains("Settings"));

        QSignalSpy stopped(&window, &MainWindow::recordingStopped);
        window.stopRecording();
        QVERIFY(stopped.wait(10000));
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        QVERIFY(store.session(first)->endNs); // the first recording was closed, not lost
        bool scraped = false;
        for (const auto& d : store.devices(second))
            scraped |=
                d.kind == "engine-endpoint" && d.attrs.find(url.toStdString()) != std::string::npos;
        QVERIFY(scraped);
        // Opened later, the session says the endpoint was scraped, not to add one.
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.openSession(second);
        QVERIFY(shown.wait(10000));
        QVERIFY2(engineText().contains(url + " was scraped, but it reported none"),
                 qPrintable(engineText()));
        settings.engineUrls.clear();
        settings.save();
    }

    // The engine collector's device record ("engine-endpoint") is listed with the endpoints,
    // its fields spelled out, not as raw JSON under "Other".
    void devicesListTheEngineEndpoint() {
        DevicesView view;
        view.setDevices({{"engine-endpoint", "gpu1:8000",
                          "{\"url\":\"http://gpu1:8000/metrics\",\"authenticated\":false,"
                          "\"tls_verify\":true}"}});
        QTreeWidgetItem* engines = nullptr;
        for (int i = 0; i < view.topLevelItemCount(); ++i) {
            QVERIFY(view.topLevelItem(i)->text(0) != "Other");
            if (view.topLevelItem(i)->text(0) == "Engine endpoints")
                engines = view.topLevelItem(i);
        }
        QVERIFY(engines);
        QCOMPARE(engines->childCount(), 1);
        QCOMPARE(engines->child(0)->text(0), QString("gpu1:8000"));
        QCOMPARE(engines->child(0)->text(1), QString("url: http://gpu1:8000/metrics   "
                                                     "authenticated: false   tls_verify: true"));
        // A session's multipath finding gets a group of its own, in the caution colour; without
        // one there is no such group (not "none found", which would claim it was judged).
        QVERIFY(!findGroup(view, "Multipath findings"));
        view.setDevices(
            {{"path-finding", "nvme1c1n1",
              R"({"finding":"one-path-carries-all","text":"nvme1c1n1 carried 95.0 %"})"}});
        auto* paths = findGroup(view, "Multipath findings");
        QVERIFY(paths);
        QCOMPARE(paths->child(0)->text(1), QString("text: nvme1c1n1 carried 95.0 %"));
        QVERIFY(paths->child(0)->foreground(1).color() != view.palette().color(QPalette::Text));
    }

    // Markers (Ctrl+M) are stored as events: a recorded session draws them on every chart.
    void aRecordedSessionDrawsItsMarkers() {
        const QString db = m_dir.filePath("markers.db");
        const auto id = writeSession(db.toStdString());
        {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            store.addEvent(id, kStart + 30 * kSecond, "marker", "cache flushed");
            store.addEvent(id, kStart + 10 * kSecond, "experiment-plan", "not a marker");
        }
        MainWindow window({db, id, false, 60});
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        QCOMPARE(window.timeline()->markers().size(), std::size_t(1));
        QCOMPARE(window.timeline()->markers().front().tNs, kStart + 30 * kSecond);
        int drawn = 0;
        for (const auto* c : window.timeline()->charts()) {
            if (c->isAbsent())
                continue;
            QTRY_COMPARE_WITH_TIMEOUT(c->markerLabels(), QStringList{"cache flushed"}, 5000);
            ++drawn;
        }
        QCOMPARE(drawn, 3);
    }

    // The live band judges storage on the workspace's ceilings, as `analyze` does: every disk
    // of this machine was probed at 1 GB/s, so the lane's evidence names the probe.
    void liveBandUsesTheProbedCeilings() {
        std::vector<std::string> disks;
        std::error_code error;
        for (const auto& e : std::filesystem::directory_iterator("/sys/block", error))
            if (!BlockDeviceNames::isIgnored(e.path().filename().string()))
                disks.push_back(e.path().filename().string());
        if (disks.empty())
            QSKIP("no block device to record on this machine");
        const QString db = m_dir.filePath("live-probed.db");
        {
            char host[256] = {};
            QCOMPARE(gethostname(host, sizeof host - 1), 0); // as the recorder names the host
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo info;
            info.host = host;
            info.startNs = WallClock().nowNs() - 3600 * kSecond;
            const auto probe = store.createSession(info);
            std::vector<DeviceRecord> probes;
            for (const auto& disk : disks)
                probes.push_back(
                    {"storage-probe", disk, R"({"read_bytes_per_s":1e9,"write_bytes_per_s":1e9})"});
            store.addDevices(probe, probes);
            store.finishSession(probe, info.startNs + kSecond);
        }
        MainWindow window({db, 0, true, 60});
        QSignalSpy started(&window, &MainWindow::recordingStarted);
        window.show();
        QVERIFY(started.wait(15000));
        auto probed = [&] {
            for (const auto& span : window.timeline()->bottleneckBand()->spans())
                for (const auto& text : span.windows)
                    if (text.contains("1.0 GB/s ceiling (probed)"))
                        return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(probed(), 20000);
        QSignalSpy stopped(&window, &MainWindow::recordingStopped);
        window.stopRecording();
        QVERIFY(stopped.wait(10000));
    }

    // Beside the device charts, which processes read and write: sampled off the GUI thread
    // while this machine's live view shows, and said to be the live view's in a session.
    void topIoProcessesFollowTheLiveView() {
        MainWindow window({m_db, 0, false, 60});
        window.show();
        QDockWidget* dock = window.processIoDock();
        QVERIFY(dock && dock->isVisible());
        QCOMPARE(dock->windowTitle(), QString("Top I/O processes"));
        // In the docks' column under the sessions, not one more tab behind them.
        QCOMPARE(window.dockWidgetArea(dock), Qt::LeftDockWidgetArea);
        QVERIFY(window.tabifiedDockWidgets(dock).isEmpty());
        ProcessIoPanel* panel = window.processIoPanel();
        auto* model = qobject_cast<ProcessIoTableModel*>(panel->table()->model());
        QVERIFY(model);
        // Two scans have come back from the sampler's thread: a table, or why there is none.
        QTRY_VERIFY_WITH_TIMEOUT(!model->message().startsWith("Reading") &&
                                     !model->message().startsWith("Measuring"),
                                 15000);
        QVERIFY(!model->inactive());
        QVERIFY(!model->footnote().isEmpty());
        window.openSession(m_session);
        QTRY_VERIFY_WITH_TIMEOUT(model->inactive(), 5000);
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(panel->messageLabel()->isVisibleTo(panel));
        window.showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!model->inactive() && !model->message().startsWith("Reading"),
                                 5000);
    }

    void liveViewRecordsThisMachine() {
        const QString db = m_dir.filePath("live.db");
        MainWindow window({db, 0, true, 60});
        QSignalSpy started(&window, &MainWindow::recordingStarted);
        QSignalSpy refreshed(&window, &MainWindow::liveRefreshed);
        window.show();
        QVERIFY(started.wait(15000));
        QTRY_VERIFY_WITH_TIMEOUT(window.timeline()->chart("host-cpu") &&
                                     window.timeline()->chart("host-cpu")->pointCount() >= 4,
                                 10000);
        QVERIFY(refreshed.count() > 0);
        QVERIFY(window.isLive());
        // The first seconds fill the plot: a window of 10 s, not a sliver of the minute.
        QVERIFY2(window.timeline()->rangeStart() >= -20,
                 qPrintable(QString::number(window.timeline()->rangeStart())));
        QCOMPARE(window.timeline()->rangeEnd(), 0.0);
        // The stat tiles: each has a value now or says why not; no engine here, so no TTFT.
        StatTileRow* tiles = window.timeline()->tiles();
        QVERIFY(tiles->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(tiles->tiles().size(), std::size_t(7), 10000);
        for (const auto& t : tiles->tiles())
            QVERIFY2(t.value || !t.text.empty() || !t.absentReason.empty(), t.id.c_str());
        QCOMPARE(tiles->valueText("ttft"), QString("-"));
        QVERIFY(!tiles->detailText("ttft").isEmpty());
        // The live band classifies what the buffer holds; x is seconds ago.
        QTRY_VERIFY_WITH_TIMEOUT(!window.timeline()->bottleneckBand()->spans().empty(), 10000);
        // The newest span ends near now (a busy machine samples and repaints late, by seconds
        // at most), not at an absolute time or the start of the minute.
        const double newestEnd = window.timeline()->bottleneckBand()->spans().back().x1;
        QVERIFY2(newestEnd <= 10.0 && newestEnd >= -1.0, qPrintable(QString::number(newestEnd)));
        const qint64 id = started.first().first().toLongLong();

        QSignalSpy stopped(&window, &MainWindow::recordingStopped);
        window.stopRecording();
        QVERIFY(stopped.wait(10000));
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto info = store.session(id);
        QVERIFY(info && info->endNs); // closed cleanly
        QVERIFY(store.sampleCount(id) > 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
