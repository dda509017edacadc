#include "TestSupport.h"
#include "core/store/Store.h"
#include "ui/MainWindow.h"
#include "ui/compare/CompareDialog.h"
#include "ui/experiment/ExperimentDialog.h"
#include "ui/experiment/RemoteRunLog.h"
#include "ui/timeline/TimelineView.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <nlohmann/json.hpp>

using namespace tierscope;

// The GUI's experiment runner and compare view, offscreen, against real runs on this machine:
// a directory on the build disk (A) against /dev/shm (B).
class TestExperimentGui : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_shm;

    QString writePlan(const QString& name, int repetitions, const QString& size,
                      const QString& extra = {}) {
        const QString plan = QString(R"(name = "%1"
repetitions = %2
gates = ["model_load_time <= 0.9x"]

[[arm]]
label = "disk"
storage_profile = "build-disk"
path = "%3/%1/disk"
setup = "mkdir -p {path}"

[[arm]]
label = "shm"
storage_profile = "tmpfs"
path = "%4/%1"
setup = "mkdir -p {path}"

[[workload]]
kind = "model-load"
size = "%5"
files = 2
)")
                                 .arg(name)
                                 .arg(repetitions)
                                 .arg(m_dir.path(), m_shm, size) +
                             extra;
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, plan.toUtf8());
        return path;
    }
    // A plan writePlan wrote, with `from` replaced by `to`: how many places it replaced (-1:
    // the file cannot be read).
    static int replaceInPlan(const QString& file, const QString& from, const QString& to) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return -1;
        QString plan = QString::fromUtf8(f.readAll());
        const int count = static_cast<int>(plan.count(from));
        test::writeFile(file, plan.replace(from, to).toUtf8());
        return count;
    }

    static QString status(ExperimentDialog* d, int row) {
        const auto* item = d->runTable()->item(row, 4);
        return item ? item->text() : QString();
    }

    ExperimentDialog* open(MainWindow& w, const QString& plan) {
        QSignalSpy opened(&w, &MainWindow::planOpened);
        w.openPlan(plan);
        if (!opened.wait(10000))
            return nullptr;
        return opened.takeFirst().at(0).value<ExperimentDialog*>();
    }

  private slots:
    // Clicks the button with `text` of the message box the dialog is about to open.
    static void answer(const QString& text) {
        auto* timer = new QTimer;
        QObject::connect(timer, &QTimer::timeout, timer, [timer, text] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box)
                return;
            for (auto* button : box->buttons())
                if (button->text() == text)
                    button->click();
            timer->deleteLater();
        });
        timer->start(10);
    }

    static QPushButton* button(QWidget* w, const QString& text) {
        for (auto* b : w->findChildren<QPushButton*>())
            if (b->text() == text)
                return b;
        return nullptr;
    }

    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // the remembered compare pair
        QVERIFY(m_dir.isValid());
        m_shm = "/dev/shm/tierscope-gui-" + QString::number(QCoreApplication::applicationPid());
        qRegisterMetaType<tierscope::ExperimentDialog*>();
    }
    void cleanupTestCase() { QDir(m_shm).removeRecursively(); }

    // The lines `tierscope run --target` writes while it follows a job, as the dialog reads
    // them (the format RunCommand and RemoteJob write; a run on a server in tst_ssh).
    void remoteRunLogLines() {
        using Kind = RemoteRunLog::Line::Kind;
        const auto job = RemoteRunLog::parse(
            "job 1764590400-1234 on gpu01 (reattach: tierscope run --target ssh://gpu01 "
            "--attach 1764590400-1234)");
        QCOMPARE(job.kind, Kind::Job);
        QCOMPARE(job.jobId, QString("1764590400-1234"));
        QCOMPARE(job.host, QString("gpu01"));
        const auto started = RemoteRunLog::parse("[3/8] nvmeof, plan/load@c8, repetition 1");
        QCOMPARE(started.kind, Kind::RunStarted);
        QCOMPARE(started.index, 2);
        QCOMPARE(started.total, 8);
        QCOMPARE(RemoteRunLog::parse("[9/8] x").kind, Kind::Other); // out of range
        QCOMPARE(RemoteRunLog::parse("[0/8] x").kind, Kind::Other);
        const auto finished = RemoteRunLog::parse("  completed: 80 requests, 0 failed");
        QCOMPARE(finished.kind, Kind::RunFinished);
        QCOMPARE(finished.status, QString("completed"));
        QCOMPARE(finished.detail, QString("80 requests, 0 failed"));
        const auto ended = RemoteRunLog::parse(
            "experiment \"plan\": 8 runs, 0 failed; session 42 in /srv/tierscope.db");
        QCOMPARE(ended.kind, Kind::Ended);
        QCOMPARE(ended.session, 42);
        QCOMPARE(RemoteRunLog::parse("stopping job 1-2 on gpu01 ...").kind, Kind::Other);
        QCOMPARE(RemoteRunLog::parse("").kind, Kind::Other);
    }

    void runsAPlanThenComparesItsArms() {
        MainWindow::Options o;
        o.db = m_dir.filePath("gui.db");
        o.record = false;
        MainWindow w(o);
        w.show();
        auto* d = open(w, writePlan("gui", 2, "32MiB"));
        QVERIFY(d);
        QVERIFY(d->planValid());
        // Before anything runs, the user sees each command the plan would run.
        QVERIFY2(d->commandsText().contains("disk setup: mkdir -p '" + m_dir.path() + "/gui/disk'"),
                 qPrintable(d->commandsText()));
        QVERIFY(d->commandsText().contains("shm setup: mkdir -p '" + m_shm + "/gui'"));
        QCOMPARE(d->runTable()->rowCount(), 4);
        QCOMPARE(status(d, 0), QString("pending"));
        QCOMPARE(d->runTable()->item(1, 1)->text(), QString("shm")); // A B A B

        QSignalSpy finished(d, &ExperimentDialog::experimentFinished);
        d->start();
        QVERIFY(finished.wait(120000));
        QVERIFY(finished.at(0).at(0).toLongLong() > 0);
        QCOMPARE(finished.at(0).at(1).toBool(), false); // complete
        QCOMPARE(d->progress()->value(), 4);
        for (int row = 0; row < 4; ++row)
            QCOMPARE(status(d, row), QString("completed"));
        QVERIFY2(d->statusText().contains("4 runs, 0 failed"), qPrintable(d->statusText()));
        QTRY_COMPARE_WITH_TIMEOUT(w.shownSessionId(), finished.at(0).at(0).toLongLong(), 10000);

        const auto [a, b] = d->firstComparison();
        QCOMPARE(a, QString("arm:gui/model-load/disk@%1").arg(finished.at(0).at(0).toLongLong()));
        auto* compare = w.openCompare(a, b);
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        QVERIFY(shown.wait(60000));
        const auto* kpis = compare->kpiTable();
        int loadRow = -1;
        for (int row = 0; row < kpis->rowCount(); ++row)
            if (kpis->item(row, 0)->text() == "model_load_time")
                loadRow = row;
        QVERIFY(loadRow >= 0);
        // Which arm loaded faster is a fact about this machine's disk and page cache, not about
        // tierscope: the view must show what the stored runs measured, whichever way it went.
        const KpiComparison* load = nullptr;
        for (const auto& k : compare->result().kpis)
            if (k.name == "model_load_time")
                load = &k;
        QVERIFY(load);
        {
            Store store(o.db.toStdString(), Store::Mode::ReadOnly);
            auto seconds = [&](const char* arm) {
                std::vector<double> values;
                for (const auto& run : store.runsOfArm("gui/model-load", arm))
                    values.push_back(
                        nlohmann::json::parse(run.summaryJson)["seconds"].get<double>());
                std::sort(values.begin(), values.end());
                return values;
            };
            auto sorted = [](std::vector<double> v) {
                std::sort(v.begin(), v.end());
                return v;
            };
            QCOMPARE(sorted(load->runsA), seconds("disk"));
            QCOMPARE(sorted(load->runsB), seconds("shm"));
        }
        QVERIFY(load->a > 0 && load->b > 0 && load->a != load->b);
        QCOMPARE(kpis->item(loadRow, 4)->text().startsWith("-"), load->b < load->a);
        QCOMPARE(kpis->item(loadRow, 7)->text(), QString("2 / 2 runs"));
        QCOMPARE(compare->gateTable()->rowCount(), 0); // no gates typed yet
        QCOMPARE(compare->result().charts.size(), std::size_t(4));
        QCOMPARE(compare->chartTabs()->count(), 5); // and the checks, last
        QVERIFY2(compare->chartTabs()->tabText(4).startsWith("Checks ("),
                 qPrintable(compare->chartTabs()->tabText(4)));
        QVERIFY(compare->result().plan.find("name = \"gui\"") != std::string::npos);

        // Every chart and the report export from the view.
        QSignalSpy exported(compare, &CompareDialog::exported);
        compare->exportChartTo(0, m_dir.filePath("cdf.png"), QSize(900, 500));
        QVERIFY(exported.wait(30000));
        QCOMPARE(exported.takeFirst().at(1).toString(), QString());
        QCOMPARE(QImage(m_dir.filePath("cdf.png")).size(), QSize(900, 500));
        compare->exportChartTo(2, m_dir.filePath("timelines.svg"));
        QVERIFY(exported.wait(30000));
        QVERIFY(QFile(m_dir.filePath("timelines.svg")).size() > 1000);
        compare->exportChartTo(3, m_dir.filePath("shares.pdf"));
        QVERIFY(exported.wait(30000));
        QVERIFY(QFile(m_dir.filePath("shares.pdf")).size() > 500);
        compare->exportReportTo(m_dir.filePath("report.html"));
        QVERIFY(exported.wait(30000));
        QFile html(m_dir.filePath("report.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        QCOMPARE(html.readAll().count("<svg"), 4);
        compare->exportChartTo(0, m_dir.filePath("cdf.jpg"));
        QVERIFY(exported.wait(30000));
        QVERIFY(exported.takeLast().at(1).toString().contains(".svg, .png or .pdf"));

        // Gates typed into the view get badges in the KPI table.
        compare->setGates("model_load_time <= 0.9x; ttft_p50 <= -25%");
        compare->compare();
        QVERIFY(shown.wait(60000));
        QCOMPARE(compare->gateTable()->rowCount(), 2);
        // A TTFT gate on a model-load workload does not apply: n/a, not inconclusive.
        QCOMPARE(compare->gateTable()->item(1, 1)->text(), QString("n/a"));
        QVERIFY2(compare->gateTable()->item(1, 2)->text().contains("neither side measured"),
                 qPrintable(compare->gateTable()->item(1, 2)->text()));
        QCOMPARE(compare->gateTable()->item(0, 1)->text(),
                 kpis->item(loadRow, 8)->text()); // a measured gate keeps its verdict
        QVERIFY(kpis->item(loadRow, 8)->text() != "n/a");

        // At 1920x1080 every KPI and gate row is in view, and the names do not take the width.
        compare->resize(1800, 1000);
        QTRY_VERIFY_WITH_TIMEOUT(compare->width() == 1800, 5000);
        compare->compare();
        QVERIFY(shown.wait(60000));
        QTRY_COMPARE_WITH_TIMEOUT(kpis->verticalScrollBar()->maximum(), 0, 5000);
        QVERIFY(kpis->viewport()->height() >= kpis->rowCount() * kpis->rowHeight(0));
        QCOMPARE(compare->gateTable()->verticalScrollBar()->maximum(), 0);
        QVERIFY(compare->gateTable()->viewport()->height() >=
                2 * compare->gateTable()->rowHeight(0));
        QVERIFY2(kpis->columnWidth(0) < kpis->width() / 4,
                 qPrintable(QString::number(kpis->columnWidth(0))));
        if (!qEnvironmentVariableIsEmpty("TIERSCOPE_SCREENSHOTS")) {
            compare->resize(1400, 950);
            compare->chartTabs()->setCurrentIndex(2);
            QTest::qWait(200);
            compare->grab().save(qEnvironmentVariable("TIERSCOPE_SCREENSHOTS") + "/compare.png");
            d->grab().save(qEnvironmentVariable("TIERSCOPE_SCREENSHOTS") + "/experiment.png");
        }

        // A failed run in an arm: the status line counts it and says it was left out, so it
        // agrees with the table's "2 / 2 runs".
        {
            Store store(o.db.toStdString(), Store::Mode::ReadWrite);
            const auto runs = store.runsOfArm("gui/model-load", "disk");
            QCOMPARE(runs.size(), std::size_t(2));
            const auto failedRun = store.createRun(
                runs.front().sessionId, runs.front().workload, runs.front().paramsJson,
                runs.back().endNs.value_or(0) + 1, "gui/model-load", "disk", 2);
            store.finishRun(failedRun, runs.back().endNs.value_or(0) + 2, "failed", "{}");
        }
        compare->setGates({});
        compare->compare();
        QVERIFY(shown.wait(60000));
        QCOMPARE(kpis->item(loadRow, 7)->text(), QString("2 / 2 runs"));
        QVERIFY2(
            compare->statusText().contains("2 measured runs (1 failed left out); left out: run "),
            qPrintable(compare->statusText()));

        // A side that does not exist says so instead of showing stale numbers.
        QSignalSpy failed(compare, &CompareDialog::comparisonFailed);
        compare->setSides("run:9999", b);
        compare->compare();
        QVERIFY(failed.wait(30000));
        QVERIFY(compare->statusText().contains("no run 9999"));
    }

    void cancelKeepsCompletedRunsAndMarksTheExperimentIncomplete() {
        MainWindow::Options o;
        o.db = m_dir.filePath("cancel.db");
        o.record = false;
        MainWindow w(o);
        auto* d = open(w, writePlan("cancel", 40, "96MiB"));
        QVERIFY(d);
        QSignalSpy finished(d, &ExperimentDialog::experimentFinished);
        d->start();
        QTRY_VERIFY_WITH_TIMEOUT(d->progress()->value() >= 2, 120000);
        d->cancel();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.at(0).at(1).toBool(), true); // incomplete
        QVERIFY(d->statusText().contains("INCOMPLETE"));
        QCOMPARE(status(d, 0), QString("completed"));
        QCOMPARE(status(d, 79), QString("pending")); // never started
        Store store(o.db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(finished.at(0).at(0).toLongLong());
        int completed = 0, cancelled = 0;
        for (const auto& r : runs) {
            completed += r.status == "completed";
            cancelled += r.status == "cancelled";
        }
        QVERIFY(completed >= 2);
        QCOMPARE(cancelled, 1);
        QVERIFY(store.eventText(finished.at(0).at(0).toLongLong(), "experiment-incomplete"));
    }

    // A plan run from the window is what the window shows, live: the recording steps aside
    // for the experiment's session, each run's start is a marker and the status says which run
    // is on, the experiment's own series reach the live buffer, and the recording it replaced
    // starts again when it ends.
    void theRunningExperimentIsTheLiveViewAndTheRecordingResumes() {
        MainWindow::Options o;
        o.db = m_dir.filePath("live.db");
        MainWindow w(o);
        w.show();
        QTRY_VERIFY_WITH_TIMEOUT(w.liveSessionId() > 0, 20000);
        const qint64 recording = w.liveSessionId();
        auto* d = open(w, writePlan("live", 1, "16MiB"));
        QVERIFY(d);
        struct Seen {
            qint64 experiment, live;
            QString status;
            int markers;
            bool workloadSeries;
        };
        std::vector<Seen> seen; // at each run's start, after the window has handled it
        connect(d, &ExperimentDialog::runStartedAt, this, [&] {
            bool workload = false;
            for (const auto& m : w.viewMetrics())
                workload = workload || m.descriptor.path.starts_with("workload/");
            seen.push_back({w.experimentSessionId(), w.liveSessionId(), w.statusText(),
                            static_cast<int>(w.timeline()->markers().size()), workload});
        });
        QSignalSpy finished(d, &ExperimentDialog::experimentFinished);
        QSignalSpy restarted(&w, &MainWindow::recordingStarted);
        d->start();
        QVERIFY(finished.wait(120000));
        const qint64 experiment = finished.at(0).at(0).toLongLong();
        QVERIFY(experiment > recording);
        QCOMPARE(seen.size(), std::size_t(2));
        for (std::size_t i = 0; i < seen.size(); ++i) {
            QCOMPARE(seen[i].experiment, experiment);
            QCOMPARE(seen[i].live, qint64(0)); // one recorder: the experiment's
            QCOMPARE(seen[i].markers, int(i + 1));
            const QString run = QString("run %1 of 2: %2").arg(i + 1).arg(i == 0 ? "disk" : "shm");
            QVERIFY2(seen[i].status.contains(
                         QString("Live: experiment session %1, %2").arg(experiment).arg(run)),
                     qPrintable(seen[i].status));
        }
        // The first run's bandwidth went through the window's buffer before the second began.
        QVERIFY(seen[1].workloadSeries);
        QCOMPARE(w.experimentSessionId(), qint64(0));
        QTRY_VERIFY_WITH_TIMEOUT(!restarted.isEmpty(), 20000);
        QVERIFY(restarted.at(0).at(0).toLongLong() > experiment);
        QTRY_COMPARE_WITH_TIMEOUT(w.shownSessionId(), experiment, 10000);
    }

    // "Compare results" compares this session's completed runs only (not an earlier experiment
    // of the same name), with the plan's gates, and offers every workload.
    void compareResultsUsesThisSessionEveryWorkloadAndThePlanGates() {
        MainWindow::Options o;
        o.db = m_dir.filePath("results.db");
        o.record = false;
        MainWindow w(o);
        {
            // An earlier experiment of the same name, ten times slower: it must not be pooled.
            Store store(o.db.toStdString(), Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = 1;
            const auto session = store.createSession(s);
            for (int i = 0; i < 4; ++i) {
                const auto id = store.createRun(session, "storage/model-load", "{}", 1,
                                                "both/model-load", i % 2 ? "shm" : "disk", i / 2);
                store.finishRun(id, 2, "completed", R"({"seconds": 100})");
            }
        }
        auto* d = open(w, writePlan("both", 2, "16MiB", R"(
[[workload]]
kind = "checkpoint-save"
size = "16MiB"
)"));
        QVERIFY(d);
        QSignalSpy finished(d, &ExperimentDialog::experimentFinished);
        d->start();
        QVERIFY(finished.wait(180000));
        QCOMPARE(finished.at(0).at(1).toBool(), false);
        QPushButton* results = button(d, "Compare results");
        QVERIFY(results && results->isEnabled());
        results->click();
        CompareDialog* compare = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((compare = w.findChild<CompareDialog*>()) != nullptr, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!compare->result().kpis.empty(), 60000);
        QCOMPARE(compare->workloadBox()->count(), 2);
        QVERIFY(compare->sideSpec(true).startsWith("run:"));
        const auto* kpis = compare->kpiTable();
        auto row = [&](const QString& name) {
            for (int r = 0; r < kpis->rowCount(); ++r)
                if (kpis->item(r, 0)->text() == name)
                    return r;
            return -1;
        };
        QVERIFY(row("model_load_time") >= 0);
        QCOMPARE(kpis->item(row("model_load_time"), 7)->text(), QString("2 / 2 runs"));
        for (const auto& k : compare->result().kpis)
            if (k.name == "model_load_time")
                QVERIFY(k.a < 50 && k.b < 50);         // not the 100 s of the old session
        QCOMPARE(compare->gateTable()->rowCount(), 1); // the plan's gate
        QCOMPARE(compare->gateTable()->item(0, 0)->text(), QString("model_load_time <= 0.9x"));
        QVERIFY2(compare->verdictText().contains("; G1 "), qPrintable(compare->verdictText()));
        QVERIFY(QString::fromStdString(compare->result().labelA).startsWith("disk [build-disk]"));

        // The second workload is one pick away; the model-load gate does not apply to it.
        QSignalSpy shown(compare, &CompareDialog::comparisonShown);
        emit compare->workloadBox()->activated(1);
        QVERIFY(shown.wait(60000));
        QVERIFY(row("checkpoint_time") >= 0);
        QCOMPARE(row("model_load_time"), -1);
        QCOMPARE(compare->gateTable()->item(0, 1)->text(), QString("n/a"));
        QVERIFY2(compare->verdictText().endsWith("G1 n/a"), qPrintable(compare->verdictText()));
    }

    // Closing mid-run asks first; "keep running" keeps it, yes cancels and the dialog goes at
    // once while the run in progress winds down on its thread. Each arm's second run waits in
    // its setup while a hold file exists, so the experiment cannot end on its own while the
    // question is up (a 40-run plan once did, under ctest -j3); cancelling stops that setup.
    void closingMidRunAsksAndDoesNotBlock() {
        MainWindow::Options o;
        o.db = m_dir.filePath("close.db");
        o.record = false;
        MainWindow w(o);
        const QString hold = m_dir.filePath("close.hold");
        test::writeFile(hold, "");
        const QString file = writePlan("close", 3, "8MiB");
        const QString waits = QString("setup = \"mkdir -p {path} && if [ -e {path}/once ]; then "
                                      "while [ -e '%1' ]; do sleep 0.05; done; fi; "
                                      "touch {path}/once\"")
                                  .arg(hold);
        QCOMPARE(replaceInPlan(file, "setup = \"mkdir -p {path}\"", waits), 2);
        QPointer<ExperimentDialog> d = open(w, file);
        QVERIFY(d);
        QSignalSpy finished(d.data(), &ExperimentDialog::experimentFinished);
        d->start();
        QTRY_VERIFY_WITH_TIMEOUT(d->progress()->value() >= 1, 120000);
        answer("Keep running");
        d->close();
        QVERIFY(d && d->isVisible());
        QVERIFY2(finished.count() == 0, qPrintable(d->statusText()));
        QVERIFY(d->progress()->value() < 6); // still held
        answer("Cancel experiment");
        d->close();
        QVERIFY(d);               // not destroyed while its worker runs: that would wait
        QVERIFY(!d->isVisible()); // but out of the way at once
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.at(0).at(1).toBool(), true); // incomplete
        QTRY_VERIFY_WITH_TIMEOUT(d.isNull(), 10000);   // WA_DeleteOnClose, once it is idle
        Store store(o.db.toStdString(), Store::Mode::ReadOnly);
        QVERIFY(store.eventText(finished.at(0).at(0).toLongLong(), "experiment-incomplete"));
    }

    // calibrate = true: the A/A calibration's runs are listed first and run first, in a session
    // of their own, and the experiment's runs carry its floor.
    void aCalibratingPlanRunsItsCalibrationFirst() {
        MainWindow::Options o;
        o.db = m_dir.filePath("cal.db");
        o.record = false;
        MainWindow w(o);
        const QString file = writePlan("cal", 2, "8MiB");
        QCOMPARE(
            replaceInPlan(file, "gates = [", "calibrate = true\ncalibration_runs = 2\ngates = ["),
            1);
        auto* d = open(w, file);
        QVERIFY(d && d->planValid());
        QCOMPARE(d->runTable()->rowCount(), 8);
        QCOMPARE(d->runTable()->item(0, 2)->text(), QString("cal-calibration/model-load"));
        QCOMPARE(d->runTable()->item(1, 1)->text(), QString("disk-again"));
        QCOMPARE(d->runTable()->item(4, 2)->text(), QString("cal/model-load"));
        QSignalSpy finished(d, &ExperimentDialog::experimentFinished);
        d->start();
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.at(0).at(1).toBool(), false);
        for (int row = 0; row < 8; ++row)
            QCOMPARE(status(d, row), QString("completed"));
        Store store(o.db.toStdString(), Store::Mode::ReadOnly);
        const auto session = finished.at(0).at(0).toLongLong();
        for (const auto& r : store.runsOfSession(session)) {
            QCOMPARE(r.experiment, std::string("cal/model-load"));
            QVERIFY(nlohmann::json::parse(r.paramsJson)["noise_floor_session"].get<long long>() <
                    session);
        }
    }

    // A load sweep's bisection adds runs while the plan runs: each gets a row of its own, with
    // what it is, and the progress bar counts it.
    void runsAddedWhileRunningGetRows() {
        MainWindow::Options o;
        o.db = m_dir.filePath("grow.db");
        o.record = false;
        MainWindow w(o);
        auto* d = open(w, writePlan("grow", 2, "32MiB"));
        QVERIFY(d);
        QCOMPARE(d->runTable()->rowCount(), 4);
        d->describeRun(5, "shm", "grow/load (rate 3)", false, 2);
        QCOMPARE(d->runTable()->rowCount(), 6);
        QCOMPARE(status(d, 4), QString("pending")); // not described yet, still shown
        QCOMPARE(status(d, 5), QString("pending"));
        QCOMPARE(d->runTable()->item(5, 0)->text(), QString("6"));
        QCOMPARE(d->runTable()->item(5, 1)->text(), QString("shm"));
        QCOMPARE(d->runTable()->item(5, 2)->text(), QString("grow/load (rate 3)"));
        QCOMPARE(d->runTable()->item(5, 3)->text(), QString("2"));
        QCOMPARE(d->findChild<QProgressBar*>()->maximum(), 6);
        d->describeRun(1, "shm", "grow/load (rate 1)", true, 0); // a known row: relabelled
        QCOMPARE(d->runTable()->rowCount(), 6);
        QCOMPARE(d->runTable()->item(1, 3)->text(), QString("warm-up"));
        d->close();
    }

    void aBrokenPlanSaysWhyAndCannotRun() {
        ExperimentDialog d(m_dir.filePath("x.db"), "broken.toml", "name = \"x\"\n[[arm]]\n");
        QVERIFY(!d.planValid());
        QCOMPARE(d.runTable()->rowCount(), 0);
    }
};

QTEST_MAIN(TestExperimentGui)
#include "tst_experimentgui.moc"
