// Every screen (issue 35): on a 1280x720 screen, and on 2560x1440 at QT_SCALE_FACTOR=2 (the
// same 1280x720 in logical pixels; a second ctest entry), the window and its dialogs fit the
// free area with the status bar on it; stat tiles flow into more rows instead of cutting their
// text; charts keep a readable height and the view scrolls; F11 toggles full screen; Ctrl+O
// starts at the example plans; Help > Keyboard shortcuts lists every action's keys.
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "ui/MainWindow.h"
#include "ui/compare/CompareDialog.h"
#include "ui/experiment/ExperimentDialog.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QApplication>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'790'000'000LL * kSecond;

// A minute at 10 Hz of host, storage and engine series: charts enough to scroll at 720p.
std::int64_t writeSession(const std::string& db) {
    std::int64_t id = 0;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.label = "fit";
        info.startNs = kStart;
        id = store.createSession(info);
        store.finishSession(id, kStart + 60 * kSecond);
    }
    StoreWriter writer(db, {});
    const int cpu = writer.defineMetric(id, {"host/cpu/busy_pct", "percent", "gauge", "{}"});
    const int read =
        writer.defineMetric(id, {"block/nvme1n1/read_bytes_per_s", "bytes/s", "rate", "{}"});
    const int ttft = writer.defineMetric(id, {"engine/e:8000/ttft_p50_s", "s", "gauge", "{}"});
    const int gpu = writer.defineMetric(id, {"gpu/0/busy_pct", "percent", "gauge", "{}"});
    for (int i = 0; i < 600; ++i) {
        const std::int64_t t = kStart + i * kSecond / 10;
        writer.append(cpu, t, i / 6.0);
        writer.append(read, t, 2e9);
        writer.append(ttft, t, 0.25);
        writer.append(gpu, t, 50);
    }
    writer.stop();
    return id;
}

StatTiles::Tile tile(const std::string& id, const std::string& title, const std::string& absent) {
    StatTiles::Tile t{id, title, ChartCatalog::Unit::Seconds};
    if (absent.empty())
        t.value = 0.35;
    t.absentReason = absent;
    return t;
}

// The live view's seven tiles as a machine without GPU or engine shows them.
std::vector<StatTiles::Tile> sevenTiles() {
    return {tile("ttft", "TTFT p50 / p99", "No engine endpoint is scraped (Settings, or --engine)"),
            tile("tokens", "Output tokens/s", "No engine endpoint is scraped"),
            tile("gpu", "GPU busy", "No AMD GPU: rocm-smi could not initialise"),
            tile("storage", "Storage read", ""),
            tile("kv", "KV-cache usage", "The engine reports no KV-cache usage"),
            tile("hit", "Prefix-cache hits", "The engine reports no prefix-cache hits"),
            tile("bottleneck", "Bottleneck", "No window with measurements yet")};
}

// The frame inside the free area, the status bar shown inside the window.
QString misfit(const QWidget& w, const QStatusBar* status = nullptr) {
    const QRect free = w.screen()->availableGeometry();
    if (!free.contains(w.frameGeometry()))
        return QString("frame %1,%2 %3x%4 outside %5x%6")
            .arg(w.frameGeometry().x())
            .arg(w.frameGeometry().y())
            .arg(w.frameGeometry().width())
            .arg(w.frameGeometry().height())
            .arg(free.width())
            .arg(free.height());
    if (status && (!status->isVisible() || !w.rect().contains(status->geometry())))
        return QString("status bar at y %1..%2 of %3")
            .arg(status->geometry().top())
            .arg(status->geometry().bottom())
            .arg(w.height());
    return {};
}

} // namespace

class TestScreenFit : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0;

    static QAction* actionWithKey(QWidget& w, const QKeySequence& key) {
        for (auto* a : w.findChildren<QAction*>())
            if (a->shortcuts().contains(key))
                return a;
        return nullptr;
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings("tierscope", "tierscope").remove("window");
        qRegisterMetaType<tierscope::ExperimentDialog*>();
        m_db = m_dir.filePath("ws.db");
        m_session = writeSession(m_db.toStdString());
        const QSize screen = QGuiApplication::primaryScreen()->availableGeometry().size();
        QCOMPARE(screen, QSize(1280, 720)); // logical pixels, either entry
    }

    void theWindowFitsWithItsStatusBar() {
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY2_WITH_TIMEOUT(misfit(window, window.statusBar()).isEmpty(),
                                  qPrintable(misfit(window, window.statusBar())), 5000);
        QVERIFY(!window.statusBar()->isHidden());
    }

    // A geometry saved on a larger screen is brought back onto this one, frame and all.
    void aGeometrySavedOnALargerScreenFits() {
        {
            MainWindow big({m_db, 0, false, 300});
            big.setGeometry(300, 200, 2400, 1400);
        } // saved on close
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY2_WITH_TIMEOUT(misfit(window, window.statusBar()).isEmpty(),
                                  qPrintable(misfit(window, window.statusBar())), 5000);
        QSettings("tierscope", "tierscope").remove("window");
    }

    void theDialogsFit() {
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* compare = window.openCompare();
        QVERIFY(QTest::qWaitForWindowExposed(compare));
        QTRY_VERIFY2_WITH_TIMEOUT(misfit(*compare).isEmpty(), qPrintable(misfit(*compare)), 5000);
        compare->close();
        QSignalSpy opened(&window, &MainWindow::planOpened);
        const QString plans = MainWindow::examplePlansDir(QCoreApplication::applicationDirPath());
        window.openPlan(plans + "/disk-vs-shm.toml");
        QVERIFY(opened.wait(10000));
        auto* plan = opened.first().first().value<ExperimentDialog*>();
        QVERIFY(plan);
        QVERIFY(QTest::qWaitForWindowExposed(plan));
        QTRY_VERIFY2_WITH_TIMEOUT(misfit(*plan).isEmpty(), qPrintable(misfit(*plan)), 5000);
        plan->close();
    }

    // Too many for one row at their text's width: a second row, no text cut. Wide: one row.
    void tilesFlowIntoRowsInsteadOfEliding() {
        StatTileRow row;
        row.setTiles(sevenTiles());
        for (const int width : {1280, 880, 600, 400}) {
            row.resize(width, row.heightForWidth(width));
            QVERIFY2(!row.elides(), qPrintable(QString::number(width)));
            const QRect last = row.tileRect(6);
            QVERIFY(last.right() <= width && last.bottom() <= row.height());
        }
        row.resize(880, row.heightForWidth(880));
        QVERIFY(row.rowCount() > 1);
        QVERIFY(row.tileRect(0).top() < row.tileRect(6).top()); // the last is on a later row
        row.resize(4000, row.heightForWidth(4000));
        QCOMPARE(row.rowCount(), 1);
        // In the window the row gets the height it asks for at its width.
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* tiles = window.timeline()->tiles();
        tiles->setTiles(sevenTiles());
        QTRY_COMPARE_WITH_TIMEOUT(tiles->height(), tiles->heightForWidth(tiles->width()), 5000);
        QVERIFY(!tiles->elides());
    }

    void chartsKeepAReadableHeightAndTheViewScrolls() {
        MainWindow window({m_db, m_session, false, 300});
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        auto* scroll = window.timeline()->findChild<QScrollArea*>();
        QVERIFY(scroll);
        int drawn = 0;
        for (const auto* chart : window.timeline()->charts())
            if (!chart->isAbsent()) {
                ++drawn;
                QTRY_VERIFY_WITH_TIMEOUT(chart->height() >= 150, 5000);
            }
        QVERIFY(drawn >= 3);
        // Shorter than the charts: it scrolls rather than squeezing them.
        window.resize(window.width(), 480);
        QTRY_VERIFY_WITH_TIMEOUT(scroll->verticalScrollBar()->maximum() > 0, 5000);
        for (const auto* chart : window.timeline()->charts())
            if (!chart->isAbsent())
                QVERIFY(chart->height() >= 150);
    }

    void f11TogglesFullScreen() {
        MainWindow window({m_db, 0, false, 300});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto* full = actionWithKey(window, QKeySequence(Qt::Key_F11));
        QVERIFY(full);
        full->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.windowState() & Qt::WindowFullScreen, 5000);
        QVERIFY(full->isChecked());
        full->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!(window.windowState() & Qt::WindowFullScreen), 5000);
        QVERIFY(!full->isChecked());
    }

    // Ctrl+O's dialog starts where the example plans are: a build finds the source tree's,
    // an installation the ones beside its binary.
    void ctrlOStartsAtTheExamplePlans() {
        MainWindow window({m_db, 0, false, 300});
        QVERIFY(actionWithKey(window, QKeySequence::Open));
        const QString built = MainWindow::examplePlansDir(QCoreApplication::applicationDirPath());
        QVERIFY2(QFileInfo::exists(built + "/disk-vs-shm.toml"), qPrintable(built));
        QTemporaryDir prefix;
        QVERIFY(QDir(prefix.path()).mkpath("bin"));
        QVERIFY(QDir(prefix.path()).mkpath("share/doc/tierscope/examples"));
        QFile plan(prefix.filePath("share/doc/tierscope/examples/disk-vs-shm.toml"));
        QVERIFY(plan.open(QIODevice::WriteOnly));
        plan.close();
        QCOMPARE(MainWindow::examplePlansDir(prefix.filePath("bin")),
                 QDir::cleanPath(prefix.filePath("share/doc/tierscope/examples")));
        QTemporaryDir empty;
        QCOMPARE(MainWindow::examplePlansDir(empty.path()), QString());
    }

    void theShortcutListHasEveryActionsKeys() {
        MainWindow window({m_db, 0, false, 300});
        const QString list = window.shortcutList();
        int keys = 0;
        for (auto* a : window.findChildren<QAction*>())
            for (const auto& key : a->shortcuts()) {
                ++keys;
                const QString text = key.toString(QKeySequence::NativeText);
                QVERIFY2(list.contains(text + "\t") || list.contains(text + ", "),
                         qPrintable(text + " missing from:\n" + list));
            }
        QVERIFY(keys >= 12);
        for (const char* expected :
             {"F11", "Ctrl+0\tReset zoom", "Ctrl+O", "Space\tPause", "Ctrl+Shift+L\tCopy link"})
            QVERIFY2(list.contains(expected), qPrintable(QString(expected) + " in\n" + list));
    }
};

// The screen is set before the application starts: TST_SCREEN (default 1280x720) for the
// offscreen platform, QT_SCALE_FACTOR from the ctest entry.
int main(int argc, char** argv) {
    const QByteArray size = qgetenv("TST_SCREEN").isEmpty() ? "1280x720" : qgetenv("TST_SCREEN");
    const auto wh = size.split('x');
    QTemporaryDir config;
    const QString path = config.filePath("screens.json");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return 2;
    file.write(QString(R"({"screens": [{"name": "fit", "x": 0, "y": 0, "width": %1, )"
                       R"("height": %2, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                   .arg(wh.value(0).toInt())
                   .arg(wh.value(1).toInt())
                   .toUtf8());
    file.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + path.toUtf8());
    QApplication app(argc, argv);
    TestScreenFit test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_screenfit.moc"
