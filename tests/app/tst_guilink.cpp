// Deep links: `tierscope gui --session N --range 10s..40s --runs 3,5` opens that view, and
// File > Copy link writes such a command for the view shown; the link parsed back by the real
// command line (after a real shell split it) gives the same view.
#include "TestSupport.h"
#include "app/CommandLine.h"
#include "app/commands/GuiCommand.h"
#include "app/common/ExitCode.h"
#include "core/store/Store.h"
#include "core/util/TimeRangeText.h"
#include "ui/MainWindow.h"
#include "ui/experiment/RunsPanel.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QItemSelectionModel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'790'000'000LL * kSecond;

struct View {
    QString db;
    long long session = 0;
    std::optional<TimeRangeText::Range> range;
    std::vector<long long> runs;
};

// The words /bin/sh makes of the link, parsed as `tierscope` parses its command line.
View parseLink(const QString& link) {
    QProcess sh;
    sh.start("/bin/sh", {"-c", "printf '%s\\0' " + link});
    if (!sh.waitForFinished(10000) || sh.exitCode() != 0)
        return {};
    auto words = sh.readAllStandardOutput().split('\0');
    words.removeLast(); // after the last NUL
    if (words.isEmpty() || words.front() != "tierscope")
        return {};
    std::vector<std::string> reversed;
    for (auto it = words.rbegin(); it + 1 != words.rend(); ++it)
        reversed.push_back(it->toStdString());
    CommandLine cli;
    cli.app().parse(reversed);
    View out;
    out.db = QString::fromStdString(cli.global().db);
    auto* gui = cli.app().get_subcommand("gui");
    out.session = gui->get_option("--session")->as<long long>();
    if (const auto* range = gui->get_option("--range"); range->count() > 0)
        out.range = TimeRangeText::parse(range->as<std::string>());
    if (const auto* runs = gui->get_option("--runs"); runs->count() > 0)
        out.runs = runs->as<std::vector<long long>>();
    return out;
}

} // namespace

class TestGuiLink : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    QString m_db;
    std::int64_t m_session = 0;
    std::vector<std::int64_t> m_runs;

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings("tierscope", "tierscope").remove("window");
        // A path a shell would split or expand, unquoted.
        QVERIFY(QDir(m_dir.path()).mkpath("shared work's $HOME"));
        m_db = m_dir.filePath("shared work's $HOME/ws.db");
        Store store(m_db.toStdString(), Store::Mode::ReadWrite);
        SessionInfo info;
        info.label = "linked";
        info.startNs = kStart;
        m_session = store.createSession(info);
        for (int i = 0; i < 5; ++i) {
            const auto run = store.createRun(m_session, "load", "{}", kStart + i * 12 * kSecond,
                                             "exp", i % 2 ? "B" : "A", i);
            // A request each, so the Runs dock lists every run.
            auto request = test::answered(0.1 * (i + 1));
            request.scheduledNs = request.sendNs = kStart + (i * 12 + 1) * kSecond;
            store.addRequests(run, {request});
            store.finishRun(run, kStart + (i * 12 + 10) * kSecond, "done", "{}");
            m_runs.push_back(run);
        }
        store.finishSession(m_session, kStart + 60 * kSecond);
    }

    void theLinkRoundTripsThroughTheShellAndTheCommandLine() {
        const TimeRangeText::Range range{10'500'000'000, 40 * kSecond};
        const QString link = MainWindow::linkFor(m_db, 7, range.fromNs, range.toNs, {3, 5});
        QVERIFY2(link.startsWith("tierscope --db '"), qPrintable(link));
        QVERIFY2(link.endsWith(" gui --session 7 --range 10.5s..40s --runs 3,5"), qPrintable(link));
        const View back = parseLink(link);
        QCOMPARE(back.db, QFileInfo(m_db).absoluteFilePath());
        QCOMPARE(back.session, 7LL);
        QCOMPARE(back.range, std::optional(range));
        QCOMPARE(back.runs, (std::vector<long long>{3, 5}));
        // One open end, no runs.
        const View open = parseLink(MainWindow::linkFor(m_db, 2, std::nullopt, 30 * kSecond, {}));
        QCOMPARE(open.range, std::optional(TimeRangeText::Range{std::nullopt, 30 * kSecond}));
        QVERIFY(open.runs.empty());
    }

    void aRangeOrRunsNeedASessionAndAWellFormedRange() {
        {
            CommandLine cli;
            std::vector<std::string> args{"10s..40s", "--range", "gui"};
            QVERIFY_THROWS_EXCEPTION(CLI::ParseError, cli.app().parse(args));
        }
        GuiCommand::Options o;
        o.session = 1;
        o.range = "40s..10s";
        QCOMPARE(GuiCommand::run("tierscope", GlobalOptions{}, o), kExitUsage);
    }

    // The linked view opens as linked, and Copy link gives the same command back.
    void theWindowOpensTheLinkedViewAndCopiesIt() {
        MainWindow::Options options{m_db, m_session, false, 300};
        options.rangeFromNs = 10 * kSecond;
        options.rangeToNs = 40 * kSecond;
        options.runs = {m_runs[2], m_runs[4]};
        MainWindow window(options);
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        QVERIFY(shown.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(window.sessionSettled(), 10000);
        QCOMPARE(window.timeline()->rangeStart(), 10.0);
        QCOMPARE(window.timeline()->rangeEnd(), 40.0);
        // Both runs of the link are selected: their spans on the charts and their rows.
        const QList<qint64> linked{m_runs[2], m_runs[4]};
        QCOMPARE(window.timeline()->selectedRuns(), linked);
        QCOMPARE(window.runsPanel()->highlightedRuns(), linked);
        QCOMPARE(window.runsPanel()->table()->selectionModel()->selectedRows().size(), 2);
        // The range is also selected for its figures: the Range dock shows them.
        QTRY_VERIFY(window.timeline()->hasSelection());
        QCOMPARE(window.timeline()->selectionStart(), 10.0);
        QCOMPARE(window.timeline()->selectionEnd(), 40.0);
        QVERIFY(window.rangeDock()->isVisible());
        const View back = parseLink(window.viewLink());
        QCOMPARE(back.session, static_cast<long long>(m_session));
        QCOMPARE(back.range, std::optional(TimeRangeText::Range{10 * kSecond, 40 * kSecond}));
        QCOMPARE(back.runs, (std::vector<long long>{m_runs[2], m_runs[4]}));

        QAction* copy = nullptr;
        for (auto* a : window.findChildren<QAction*>())
            if (a->text().remove('&') == "Copy link")
                copy = a;
        QVERIFY(copy);
        copy->trigger();
        QCOMPARE(QGuiApplication::clipboard()->text(), window.viewLink());

        // Another run selected: the link follows the selection.
        window.timeline()->selectRun(m_runs[0]);
        QCOMPARE(parseLink(window.viewLink()).runs, (std::vector<long long>{m_runs[0]}));
        // Another range selected (Shift+drag): the link names it, not the zoom.
        window.timeline()->selectRange(12.0, 20.0);
        QCOMPARE(parseLink(window.viewLink()).range,
                 std::optional(TimeRangeText::Range{12 * kSecond, 20 * kSecond}));
    }
};

QTEST_MAIN(TestGuiLink)
#include "tst_guilink.moc"
