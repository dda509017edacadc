// The A/B overlay on its own, offscreen, against a workspace written here: an experiment with
// two arms of two runs each, GPU busy sampled every second and requests in every run.
#include "TestSupport.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "ui/AppPalette.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/OverlayChart.h"
#include "ui/compare/OverlayHistogram.h"
#include "ui/compare/OverlayView.h"
#include "ui/sessions/SessionBrowser.h"
#include "ui/sessions/SessionListModel.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QDoubleSpinBox>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <numeric>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'750'000'000LL * kSecond;
constexpr int kRunSeconds = 30;
constexpr int kRequestsA = 10; // per run
constexpr int kRequestsB = 8;

// Runs A1, B1, A2, B2 start at 100, 200, 300, 400 s into the session.
std::int64_t runStart(int i) {
    return kStart + (100 + 100 * i) * kSecond;
}

// GPU busy: 40 % in A's runs, 80 % in B's, 10 % between them.
double busyAt(int second) {
    for (int i = 0; i < 4; ++i) {
        const int from = 100 + 100 * i;
        if (second >= from && second < from + kRunSeconds)
            return i % 2 == 0 ? 40.0 : 80.0;
    }
    return 10.0;
}

OverlayView* openAndWait(OverlayView* view) {
    QSignalSpy loaded(view, &OverlayView::loaded);
    if (!loaded.wait(30000))
        qWarning("overlay not loaded: %s", qPrintable(view->statusText()));
    return view;
}

OverlayChart* chartOf(OverlayView* view, const std::string& key) {
    for (auto* chart : view->charts())
        if (chart->series().key == key)
            return chart;
    return nullptr;
}

} // namespace

class TestOverlayView : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("overlay.db");
        const std::string db = m_db.toStdString();
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = kStart;
            info.label = "kv-ab";
            m_session = store.createSession(info);
            store.finishSession(m_session, kStart + 500 * kSecond);
        }
        {
            StoreWriter writer(db, {});
            const int gpu = writer.defineMetric(m_session, {"gpu/0/busy_pct", "percent"});
            for (int s = 0; s < 500; ++s)
                writer.append(gpu, kStart + s * kSecond, busyAt(s));
            writer.stop();
        }
        Store store(db, Store::Mode::ReadWrite);
        for (int i = 0; i < 4; ++i) {
            const bool a = i % 2 == 0;
            const auto run = store.createRun(m_session, "load", "{}", runStart(i), "x",
                                             a ? "A" : "B", i / 2 + 1);
            std::vector<RequestRecord> requests;
            for (int r = 0; r < (a ? kRequestsA : kRequestsB); ++r) {
                auto q = test::answered(a ? 0.1 + 0.01 * r : 0.5 + 0.05 * r);
                q.sendNs = runStart(i) + (2 + 2 * r) * kSecond;
                requests.push_back(q);
            }
            store.addRequests(run, requests);
            store.finishRun(run, runStart(i) + kRunSeconds * kSecond, "completed", "{}");
        }
    }

    // Both arms on one time axis: each run's line starts at 0 s, A's at 40 %, B's at 80 %,
    // a line per run in the side's colour and one legend entry per side.
    void bothSidesStartAtZero() {
        std::unique_ptr<OverlayView> view(openAndWait(new OverlayView(m_db, "arm:x/A", "arm:x/B")));
        QVERIFY2(view->statusText().isEmpty(), qPrintable(view->statusText()));
        QVERIFY(view->windowTitle().contains("arm x/A"));
        QVERIFY(view->windowTitle().contains("arm x/B"));
        QVERIFY(view->sidesText().contains("A: arm x/A, 2 measured runs"));
        QCOMPARE(view->data().a.ranges.size(), std::size_t(2));
        QCOMPARE(view->data().b.ranges.size(), std::size_t(2));
        QCOMPARE(view->chosen(), QStringList({"request/ttft", "request/tokens", "gpu/0/busy_pct"}));
        OverlayChart* gpu = chartOf(view.get(), "gpu/0/busy_pct");
        QVERIFY(gpu);
        QCOMPARE(gpu->legendNames(),
                 QStringList({"A: arm x/A, 2 measured runs", "B: arm x/B, 2 measured runs"}));
        for (int side = 0; side < 2; ++side) {
            QCOMPARE(gpu->lineCount(side), 2);
            for (int i = 0; i < 2; ++i) {
                const auto points = gpu->points(side, i);
                QVERIFY(points.size() >= kRunSeconds - 1);
                QVERIFY2(points.front().x() >= 0.0 && points.front().x() < 1.0,
                         qPrintable(QString::number(points.front().x())));
                QCOMPARE(points.front().y(), side == 0 ? 40.0 : 80.0);
                QVERIFY(points.back().x() <= kRunSeconds);
            }
        }
        QCOMPARE(gpu->xMin(), 0.0);
        QCOMPARE(gpu->xMax(), double(kRunSeconds));
        // The requests' dots: x the send since the run's start, y the TTFT in the axis' unit.
        OverlayChart* ttft = chartOf(view.get(), "request/ttft");
        QVERIFY(ttft);
        QCOMPARE(ttft->unitSuffix(), QString("ms"));
        QCOMPARE(ttft->lineCount(0), 2);
        QCOMPARE(ttft->points(0, 0).size(), kRequestsA);
        QCOMPARE(ttft->points(0, 0).front(), QPointF(2.0, 100.0));
        QCOMPARE(ttft->points(1, 1).front(), QPointF(2.0, 500.0));
        // More series are a tick away; an unticked one goes.
        view->choose({"gpu/0/busy_pct"});
        QCOMPARE(view->charts().size(), std::size_t(1));
        QCOMPARE(view->seriesList()->count(), 3);
    }

    // The offset moves every point of B by itself and leaves A where it was.
    void theOffsetMovesB() {
        std::unique_ptr<OverlayView> view(openAndWait(new OverlayView(m_db, "arm:x/A", "arm:x/B")));
        OverlayChart* gpu = chartOf(view.get(), "gpu/0/busy_pct");
        QVERIFY(gpu);
        const auto a = gpu->points(0, 0), b = gpu->points(1, 0);
        QSignalSpy redrawn(view.get(), &OverlayView::redrawn);
        view->offsetBox()->setValue(12.5); // as the user's spin box does
        QCOMPARE(redrawn.count(), 1);
        gpu = chartOf(view.get(), "gpu/0/busy_pct");
        const auto a2 = gpu->points(0, 0), b2 = gpu->points(1, 0);
        QCOMPARE(a2, a);
        QCOMPARE(b2.size(), b.size());
        for (qsizetype i = 0; i < b.size(); ++i) {
            QCOMPARE(b2[i].x(), b[i].x() + 12.5);
            QCOMPARE(b2[i].y(), b[i].y());
        }
        QCOMPARE(gpu->xMax(), kRunSeconds + 12.5);
        OverlayChart* ttft = chartOf(view.get(), "request/ttft");
        QCOMPARE(ttft->points(1, 0).front().x(), 14.5);
        QCOMPARE(ttft->points(0, 0).front().x(), 2.0);
        view->setOffset(-5);
        QCOMPARE(chartOf(view.get(), "gpu/0/busy_pct")->xMin(), -5.0);
    }

    // Both sides' histograms are drawn over one set of bins, and each side's bars, in percent
    // of its requests, add up to the requests it sent.
    void theHistogramsAddUpToTheRequests() {
        std::unique_ptr<OverlayView> view(openAndWait(new OverlayView(m_db, "arm:x/A", "arm:x/B")));
        OverlayHistogram* h = view->histogram();
        const std::size_t bins = h->histogram().edgesMs.size() - 1;
        QVERIFY(bins >= 5);
        const std::size_t expected[] = {2 * kRequestsA, 2 * kRequestsB};
        for (int side = 0; side < 2; ++side) {
            const QList<double> heights = h->barHeights(side);
            QCOMPARE(std::size_t(heights.size()), bins);
            QCOMPARE(h->total(side), expected[side]);
            double requests = 0.0;
            for (const double percent : heights)
                requests += percent / 100.0 * double(expected[side]);
            QVERIFY2(std::abs(requests - double(expected[side])) < 1e-6,
                     qPrintable(QString::number(requests)));
            QVERIFY(std::any_of(heights.begin(), heights.end(), [](double v) { return v > 0; }));
        }
        QCOMPARE(h->histogram().edgesMs.front(), 100.0);
        QCOMPARE(h->histogram().edgesMs.back(), 850.0);
        QCOMPARE(h->chart()->series().size(), 2);
    }

    // Under the dark theme every chart and the histogram are drawn on a dark ground; a theme
    // changed while the overlay is open is followed.
    void theDarkPaletteGivesDarkCharts() {
        std::unique_ptr<OverlayView> view(new OverlayView(m_db, "arm:x/A", "arm:x/B"));
        view->setPalette(AppPalette::dark());
        openAndWait(view.get());
        view->resize(1400, 900);
        view->show();
        QVERIFY(QTest::qWaitForWindowExposed(view.get()));
        QVERIFY(!view->charts().empty());
        for (auto* chart : view->charts()) {
            QVERIFY(chart->chart()->backgroundBrush().color().lightness() < 100);
            const QImage image = chart->grab().toImage();
            QVERIFY(image.pixelColor(image.width() / 2, 4).lightness() < 100);
        }
        QVERIFY(view->histogram()->chart()->backgroundBrush().color().lightness() < 100);
        view->setPalette(AppPalette::light());
        QVERIFY(!view->charts().empty());
        // The light theme's ground is a gradient (its brush has no one colour): read the pixels.
        for (auto* chart : view->charts()) {
            QCOMPARE(chart->chart()->theme(), QChart::ChartThemeLight);
            const QImage image = chart->grab().toImage();
            QVERIFY2(image.pixelColor(image.width() / 2, 4).lightness() > 150,
                     qPrintable(image.pixelColor(image.width() / 2, 4).name()));
        }
        QCOMPARE(view->histogram()->chart()->theme(), QChart::ChartThemeLight);
        const QImage histogram = view->histogram()->grab().toImage();
        QVERIFY(histogram.pixelColor(histogram.width() / 2, 4).lightness() > 150);
    }

    // One session with two arms: its arms are the sides. A side that cannot be read says why.
    void aSessionOverlaysItsArmsAndAMissingSideSaysWhy() {
        std::unique_ptr<OverlayView> view(
            openAndWait(new OverlayView(m_db, QString("session:%1").arg(m_session), {})));
        QCOMPARE(QString::fromStdString(view->data().a.label),
                 QString("arm x/A@%1, 2 measured runs").arg(m_session));
        QCOMPARE(QString::fromStdString(view->data().b.label),
                 QString("arm x/B@%1, 2 measured runs").arg(m_session));

        std::unique_ptr<OverlayView> whole(openAndWait(
            new OverlayView(m_db, QString("session:%1").arg(m_session), QString("arm:x/B"))));
        QCOMPARE(whole->data().a.ranges.size(), std::size_t(1)); // the whole session
        OverlayChart* gpu = chartOf(whole.get(), "gpu/0/busy_pct");
        QVERIFY(gpu);
        QCOMPARE(gpu->points(0, 0).size() > 400, true);
        QCOMPARE(gpu->xMax(), 500.0);

        auto* missing = new OverlayView(m_db, "arm:x/A", "arm:x/Nope");
        QSignalSpy failed(missing, &OverlayView::failed);
        QVERIFY(failed.wait(30000));
        QVERIFY2(missing->statusText().startsWith("Cannot overlay: "),
                 qPrintable(missing->statusText()));
        delete missing;
    }

    // Opened from Compare ("Overlay…", the sides being compared) and from the session
    // browser's context menu.
    void openedFromCompareAndTheBrowser() {
        auto* compare = new CompareDialog(m_db);
        compare->setSides("arm:x/A", "arm:x/B");
        QPushButton* overlay = nullptr;
        for (auto* button : compare->findChildren<QPushButton*>())
            if (button->text() == "Overlay…")
                overlay = button;
        QVERIFY(overlay);
        overlay->click();
        auto* opened = compare->findChild<OverlayView*>();
        QVERIFY(opened);
        QSignalSpy loaded(opened, &OverlayView::loaded);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(QString::fromStdString(opened->data().b.label),
                 QString("arm x/B, 2 measured runs"));
        delete compare;

        SessionListModel model;
        SessionBrowser browser(&model);
        browser.setDatabase(m_db);
        std::unique_ptr<QMenu> menu(browser.menuFor({m_session}));
        QAction* arms = nullptr;
        for (auto* action : menu->actions())
            if (action->text() == "Overlay its arms")
                arms = action;
        QVERIFY(arms);
        // The browser asks; the window opens the view (MainWindow::openOverlay), as for Compare.
        QSignalSpy asked(&browser, &SessionBrowser::overlayRequested);
        arms->trigger();
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().at(0).toString(), QString("session:%1").arg(m_session));
        QVERIFY(asked.first().at(1).toString().isEmpty());
        std::unique_ptr<OverlayView> fromBrowser(
            new OverlayView(m_db, asked.first().at(0).toString(), asked.first().at(1).toString()));
        QSignalSpy browserLoaded(fromBrowser.get(), &OverlayView::loaded);
        QVERIFY(browserLoaded.wait(30000));
        QCOMPARE(fromBrowser->data().a.ranges.size(), std::size_t(2));
        std::unique_ptr<QMenu> two(browser.menuFor({m_session, m_session + 1}));
        QAction* both = nullptr;
        for (auto* action : two->actions())
            if (action->text() == "Overlay (older as A, newer as B)")
                both = action;
        QVERIFY(both);
        both->trigger();
        QCOMPARE(asked.count(), 2);
        QCOMPARE(asked.last().at(1).toString(), QString("session:%1").arg(m_session + 1));
    }
};

QTEST_MAIN(TestOverlayView)
#include "tst_overlayview.moc"
