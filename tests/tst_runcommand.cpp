#include "TestSupport.h"
#include "core/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope run PLAN` end to end: two arms, a directory on the build tree's disk (A) and one
// in /dev/shm (B), small enough for CI.
class TestRunCommand : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir{QDir::currentPath() + "/plan-XXXXXX"};
    QString m_shm;

    QString writePlan(const QString& name, const QString& extraArmA, const QString& tail = {},
                      int repetitions = 2) {
        const QString setup = extraArmA.isEmpty()
                                  ? "setup = \"mkdir -p {path} && echo setting up $TIERSCOPE_ARM\""
                                  : extraArmA;
        const QString plan = QString(R"(name = "%1"
repetitions = %6
warmup = 0
gates = ["model_load_time <= 0.9x"]
%4
[[arm]]
label = "disk"
storage_profile = "build-disk"
path = "%2/disk"
%5

[[arm]]
label = "shm"
storage_profile = "tmpfs"
path = "%3"
setup = "mkdir -p {path}"

[[workload]]
kind = "model-load"
size = "48MiB"
files = 2
)")
                                 .arg(name, m_dir.path(), m_shm, tail, setup)
                                 .arg(repetitions);
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, plan.toUtf8());
        return path;
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_shm = "/dev/shm/tierscope-tst-" + QString::number(QCoreApplication::applicationPid());
    }
    void cleanupTestCase() { QDir(m_shm).removeRecursively(); }

    void runsTheArmsInAbbaOrderAndNamesTheFasterOne() {
        const QString db = m_dir.filePath("ok.db");
        QProcess p;
        // Four runs an arm: the interval over runs needs repetitions to pass a gate.
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", writePlan("ok", "", {}, 4), "--format",
                                   "json", "--report", m_dir.filePath("ok.json")});
        QVERIFY(p.waitForFinished(240000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData()); // the gate passes: RAM loads faster
        QVERIFY(err.contains("[8/8] disk, ok/model-load, repetition 4"));
        const auto report = nlohmann::json::parse(
            [&] {
                QFile f(m_dir.filePath("ok.json"));
                f.open(QIODevice::ReadOnly);
                return f.readAll().toStdString();
            }(),
            nullptr, false);
        QVERIFY(report.is_array() && report.size() == 1); // one variant, two arms
        bool named = false;
        for (const auto& k : report[0]["kpis"])
            if (k["kpi"] == "model_load_time") {
                QVERIFY(k["b"].get<double>() < k["a"].get<double>());
                QCOMPARE(k["n_a"].get<int>(), 4);
                named = true;
            }
        QVERIFY(named);
        QCOMPARE(report[0]["gates"][0]["verdict"].get<std::string>(), std::string("pass"));

        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(1);
        QCOMPARE(runs.size(), std::size_t(8));
        std::string order;
        for (const auto& r : runs)
            order += r.arm == "disk" ? 'A' : 'B';
        QCOMPARE(order, std::string("ABBAABBA")); // the default order cancels a linear drift
        QCOMPARE(runs[3].repetition, 2);
        QCOMPARE(runs[0].experiment, std::string("ok/model-load"));
        QVERIFY(store.sampleCount(1) > 0); // the machine was recorded throughout
    }

    void aFailingSetupFailsItsRunAndStopsWhenThePlanSaysSo() {
        const QString db = m_dir.filePath("fail.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run",
                                   writePlan("fail", "setup = \"echo no mount here; exit 7\"",
                                             "on_failure = \"stop\"")});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 1); // incomplete
        QVERIFY(p.readAllStandardError().contains("INCOMPLETE"));
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(1);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("failed"));
        QVERIFY(runs[0].summaryJson.find("setup exit 7") != std::string::npos);
        QVERIFY(runs[0].summaryJson.find("no mount here") != std::string::npos);
    }

    // Setup output in Latin-1 used to abort the experiment with a JSON error, the run left
    // "running".
    void setupOutputThatIsNotUtf8IsStoredLossily() {
        const QString db = m_dir.filePath("latin1.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", db, "run",
                 writePlan("latin1", "setup = \"printf 'caf\\\\351'; exit 7\"",
                           "on_failure = \"stop\"")});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 1); // incomplete
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(1);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("failed"));
        const auto summary = nlohmann::json::parse(runs[0].summaryJson);
        QCOMPARE(summary["output"].get<std::string>(), std::string("caf\xEF\xBF\xBD"));
    }

    void ctrlCLeavesCompletedRunsAndMarksTheExperimentIncomplete() {
        const QString db = m_dir.filePath("cancel.db");
        const QString plan = writePlan("cancel", "", "", 50);
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", plan});
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY2_WITH_TIMEOUT((err += p.readAllStandardError()).contains("[3/"),
                                  err.constData(), 120000);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        int completed = 0;
        for (const auto& r : store.runsOfSession(1))
            completed += r.status == "completed";
        QVERIFY(completed >= 2);
        QVERIFY(store.session(1)->endNs); // the recording was closed cleanly
    }

    // resources/plans/disk-vs-shm.toml as shipped, only smaller, on free paths and a free port.
    void theExamplePlanNamesTheFasterArm() {
        QFile f(QStringLiteral(TIERSCOPE_FIXTURES) + "/../../resources/plans/disk-vs-shm.toml");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QString plan = QString::fromUtf8(f.readAll());
        const QString port = QString::number(test::freePort());
        const QList<QPair<QString, QString>> edits = {
            {"repetitions = 4", "repetitions = 2"},
            {"warmup = 1", "warmup = 0"},
            {"size = \"256MiB\"", "size = \"64MiB\""},
            {"concurrency = [4, 8]", "concurrency = [4]"},
            {"requests = 48", "requests = 16"},
            {"18431", port},
            {"/var/tmp/tierscope-plan/disk", m_dir.filePath("example/disk")},
            {"/dev/shm/tierscope-plan/shm", m_shm + "/example"}};
        for (const auto& [from, to] : edits) {
            QVERIFY2(plan.contains(from), qPrintable(from)); // the example still has it
            plan.replace(from, to);
        }
        const QString path = m_dir.filePath("example.toml");
        test::writeFile(path, plan.toUtf8());
        const QString db = m_dir.filePath("example.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", path, "--format", "json", "--report",
                                   m_dir.filePath("example.json")});
        QVERIFY(p.waitForFinished(280000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0 || p.exitCode() == 11 || p.exitCode() == 12, err.constData());
        QVERIFY2(err.contains("12 runs, 0 failed"), err.constData());
        QFile r(m_dir.filePath("example.json"));
        QVERIFY(r.open(QIODevice::ReadOnly));
        const auto report = nlohmann::json::parse(r.readAll().toStdString(), nullptr, false);
        QVERIFY(report.is_array());
        QCOMPARE(report.size(), std::size_t(3)); // model-load, kv-restore@c4, load
        auto kpi = [&](std::size_t i, const char* name) -> nlohmann::json {
            for (const auto& k : report[i]["kpis"])
                if (k["kpi"] == name)
                    return k;
            return {};
        };
        // RAM beats the disk: shorter model loads and KV restores, read faster.
        QVERIFY(kpi(0, "model_load_time")["b"].get<double>() <
                kpi(0, "model_load_time")["a"].get<double>());
        QVERIFY(kpi(1, "kv_restore_p50")["b"].get<double>() <
                kpi(1, "kv_restore_p50")["a"].get<double>());
        QVERIFY(kpi(0, "read_gb_per_s_peak")["b"].get<double>() >
                kpi(0, "read_gb_per_s_peak")["a"].get<double>());
        // The TTFT A/B through the simulator: one p50 per measured run, both runs of each arm.
        const auto ttft = kpi(2, "ttft_p50");
        QVERIFY2(!ttft.is_null(), report[2].dump().c_str());
        QCOMPARE(ttft["n_a"].get<int>(), 2);
        QCOMPARE(ttft["n_b"].get<int>(), 2);
        QCOMPARE(ttft["n_of"].get<std::string>(), std::string("runs"));
        QCOMPARE(ttft["runs_a"].size(), std::size_t(2));
        QVERIFY(report[2]["plan"].get<std::string>().find("disk-vs-shm") != std::string::npos);
    }

    void dryRunPrintsTheOrder() {
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"run", writePlan("dry", ""), "--dry-run"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        QCOMPARE(out.count('\n'), 6); // four runs, then the two setup commands the plan runs
        QVERIFY2(out.contains("runs: disk setup: mkdir -p " + m_dir.path().toUtf8() +
                              "/disk && echo setting up $TIERSCOPE_ARM"),
                 out.constData());
    }
};

QTEST_GUILESS_MAIN(TestRunCommand)
#include "tst_runcommand.moc"
