#include "TestSupport.h"
#include "core/analysis/RunTimeline.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"
#include "experiments/EngineProcess.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <arpa/inet.h>
#include <csignal>
#include <map>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/socket.h>
#include <unistd.h>

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

    // A small load experiment against engines the arms describe (TOML lines each).
    QString writeLoadPlan(const QString& name, const QString& armA, const QString& armB,
                          int repetitions = 1, const QString& concurrency = "2") {
        const QString plan = QString(R"(name = "%1"
repetitions = %4

[[arm]]
label = "disk"
path = "%5/%1-disk"
%2

[[arm]]
label = "shm"
path = "%5/%1-shm"
%3

[[workload]]
kind = "load"
requests = 4
input_len = 16
output_len = 4
concurrency = %6
)")
                                 .arg(name, armA, armB)
                                 .arg(repetitions)
                                 .arg(m_dir.path(), concurrency);
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, plan.toUtf8());
        return path;
    }
    // An arm whose engine is the simulator on `port`; `before` runs first in the same shell.
    static QString simEngine(int port, const QString& args = {}, const QString& before = {}) {
        return QString("engine_url = \"http://127.0.0.1:%1\"\n"
                       "engine_start = '%2 exec \"$TIERSCOPE\" sim-engine --port %1 %3'")
            .arg(QString::number(port), before, args);
    }
    struct Finished {
        int exitCode = -1;
        QByteArray err;
        std::vector<RunInfo> runs;
    };
    Finished runPlan(const QString& plan, const QString& dbName) {
        const QString db = m_dir.filePath(dbName);
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", plan});
        Finished out;
        if (!p.waitForFinished(240000))
            return out;
        out.exitCode = p.exitCode();
        out.err = p.readAllStandardError();
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        out.runs = store.runsOfSession(1);
        return out;
    }
    static int readInt(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return -1;
        return f.readAll().trimmed().toInt();
    }
    // Whether the process runs (a zombie does not).
    static bool alive(int pid) {
        QFile stat(QString("/proc/%1/stat").arg(pid));
        if (pid <= 0 || !stat.open(QIODevice::ReadOnly))
            return false;
        const QByteArray text = stat.readAll();
        const int close = text.lastIndexOf(')');
        return close > 0 && text.size() > close + 2 && text[close + 2] != 'Z';
    }
    static nlohmann::json summary(const RunInfo& run) {
        return nlohmann::json::parse(run.summaryJson, nullptr, false);
    }
    // The run's KPIs as `compare` computes them from the session.
    std::map<std::string, double> kpisOf(const QString& dbName, const RunInfo& run) {
        Store store(m_dir.filePath(dbName).toStdString(), Store::Mode::ReadOnly);
        const auto timeline = RunTimeline::read(store, run);
        return RunKpis::of(run, store.requests(run.id), &timeline);
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_shm = "/dev/shm/tierscope-tst-" + QString::number(QCoreApplication::applicationPid());
    }
    void cleanupTestCase() { QDir(m_shm).removeRecursively(); }

    void runsTheArmsInAbbaOrderAndJudgesTheGateOnTheirRuns() {
        const QString db = m_dir.filePath("ok.db");
        QProcess p;
        // Four runs an arm: the interval over runs needs repetitions to pass a gate.
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", writePlan("ok", "", {}, 4), "--format",
                                   "json", "--report", m_dir.filePath("ok.json")});
        QVERIFY(p.waitForFinished(240000));
        const QByteArray err = p.readAllStandardError();
        // Whether RAM loads faster than this machine's disk is the machine's business (a virtio
        // disk cached by its host can match tmpfs); what is checked is that the exit status,
        // the gate and the interval say the same thing.
        QVERIFY2(p.exitCode() == 0 || p.exitCode() == 11 || p.exitCode() == 12, err.constData());
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
        const std::string verdict = report[0]["gates"][0]["verdict"].get<std::string>();
        for (const auto& k : report[0]["kpis"])
            if (k["kpi"] == "model_load_time") {
                QCOMPARE(k["n_a"].get<int>(), 4);
                QCOMPARE(k["n_b"].get<int>(), 4);
                if (verdict == "pass") // a passing "<=" gate needs B below A
                    QVERIFY(k["b"].get<double>() < k["a"].get<double>());
                named = true;
            }
        QVERIFY(named);
        const std::map<int, std::string> byExit = {{0, "pass"}, {11, "fail"}, {12, "undecided"}};
        QCOMPARE(verdict, byExit.at(p.exitCode()));

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

    // A plan's data set is the plan's: after a 4 MiB model-load on these paths, a 16 MiB plan
    // measured the 4 MiB left there and reported it as 16 MiB; an interrupted preparation was
    // measured later as complete (zeros read from unwritten extents); an unknown geometry read
    // whatever chunks another plan had left.
    void eachPlanMeasuresTheDataSetItAsksFor() {
        auto plan = [&](const QString& name, const QString& workload) {
            const QString text = QString(R"(name = "%1"
repetitions = 1
warmup = 0

[[arm]]
label = "a"
path = "%2/datasets-a"

[[arm]]
label = "b"
path = "%3/datasets-b"

[[workload]]
%4
)")
                                     .arg(name, m_dir.path(), m_shm, workload);
            const QString path = m_dir.filePath(name + ".toml");
            test::writeFile(path, text.toUtf8());
            return runPlan(path, name + ".db");
        };
        auto bytesRead = [](const Finished& f) {
            std::vector<std::uint64_t> out;
            for (const auto& r : f.runs)
                out.push_back(summary(r).value("bytes_read", std::uint64_t(0)));
            return out;
        };
        const auto small = plan("small", "kind = \"model-load\"\nsize = \"4MiB\"\nfiles = 1");
        QVERIFY2(small.exitCode == 0, small.err.constData());
        QCOMPARE(bytesRead(small), (std::vector<std::uint64_t>{4 << 20, 4 << 20}));
        const auto large = plan("large", "kind = \"model-load\"\nsize = \"16MiB\"\nfiles = 4");
        QVERIFY2(large.exitCode == 0, large.err.constData());
        QVERIFY2(large.err.contains("preparing model-load data"), large.err.constData());
        QCOMPARE(bytesRead(large), (std::vector<std::uint64_t>{16 << 20, 16 << 20}));

        // The same plan again reuses its complete data; marked incomplete (as a cancel during
        // the write leaves it), it is prepared again.
        const auto again = plan("again", "kind = \"model-load\"\nsize = \"16MiB\"\nfiles = 4");
        QVERIFY2(!again.err.contains("preparing model-load data"), again.err.constData());
        const QString manifest = m_dir.filePath("datasets-a/.tierscope-data.json");
        QFile f(manifest);
        QVERIFY(f.open(QIODevice::ReadOnly));
        auto json = nlohmann::json::parse(f.readAll().toStdString());
        f.close();
        QVERIFY(json.dump().find("\"complete\":true") != std::string::npos);
        std::string text = json.dump();
        text.replace(text.find("\"complete\":true"), 15, "\"complete\":false");
        test::writeFile(manifest, QByteArray::fromStdString(text));
        const auto redo = plan("redo", "kind = \"model-load\"\nsize = \"16MiB\"\nfiles = 4");
        QVERIFY2(redo.err.contains(
                     ("preparing model-load data in " + m_dir.filePath("datasets-a")).toUtf8()),
                 redo.err.constData());
        QCOMPARE(bytesRead(redo), (std::vector<std::uint64_t>{16 << 20, 16 << 20}));

        const auto unknown = plan("unknown", "kind = \"kv-restore\"\ngeometry = \"no-such-model\"");
        QVERIFY2(unknown.err.contains("no geometry preset \"no-such-model\"; presets: "),
                 unknown.err.constData());
        for (const auto& r : unknown.runs)
            QCOMPARE(r.status, std::string("failed"));
    }

    // An arm path with a space, and {path} pasted unquoted: the shipped teardown "rm -rf
    // {path}/lmcache" removed the sibling directory fx100. Quoted, only the arm's own goes.
    void aPathWithASpaceReachesOnlyItsOwnDirectory() {
        const QString root = m_dir.filePath("quoting");
        QVERIFY(QDir().mkpath(root + "/fx100"));
        test::writeFile(root + "/fx100/keep", "not tierscope's");
        const QString plan = QString(R"(name = "quoting"
repetitions = 1
warmup = 0

[[arm]]
label = "array"
path = "%1/fx100 array"
setup = "mkdir -p {path}/lmcache && touch {path}/lmcache/chunk"
teardown = "rm -rf {path}/lmcache"

[[arm]]
label = "shm"
path = "%2"
setup = "mkdir -p {path}"

[[workload]]
kind = "model-load"
size = "4MiB"
files = 1
)")
                                 .arg(root, m_shm);
        const QString path = m_dir.filePath("quoting.toml");
        test::writeFile(path, plan.toUtf8());
        const auto done = runPlan(path, "quoting.db");
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QVERIFY(QFile::exists(root + "/fx100/keep"));
        QVERIFY(QDir(root + "/fx100 array").exists());
        QVERIFY(!QFileInfo::exists(root + "/fx100 array/lmcache"));
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
        p.start(TIERSCOPE_BINARY, {"--db", db, "run",
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
    void theExamplePlanRunsEveryWorkloadOnBothArms() {
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
        // Each storage KPI has both arms' two runs (whether RAM beats this machine's disk is not
        // the tool's behaviour, so it is not asserted).
        for (const auto& [i, name] : std::vector<std::pair<std::size_t, const char*>>{
                 {0, "model_load_time"}, {1, "kv_restore_p50"}, {0, "read_gb_per_s_peak"}}) {
            const auto k = kpi(i, name);
            QVERIFY2(!k.is_null(), name);
            QCOMPARE(k["n_a"].get<int>(), 2);
            QCOMPARE(k["n_b"].get<int>(), 2);
        }
        // The TTFT A/B through the simulator: one p50 per measured run, both runs of each arm.
        const auto ttft = kpi(2, "ttft_p50");
        QVERIFY2(!ttft.is_null(), report[2].dump().c_str());
        QCOMPARE(ttft["n_a"].get<int>(), 2);
        QCOMPARE(ttft["n_b"].get<int>(), 2);
        QCOMPARE(ttft["n_of"].get<std::string>(), std::string("runs"));
        QCOMPARE(ttft["runs_a"].size(), std::size_t(2));
        QVERIFY(report[2]["plan"].get<std::string>().find("disk-vs-shm") != std::string::npos);
        // Each arm's load runs were answered by its own engine, and no engine is left.
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        std::map<std::string, std::set<std::string>> identities;
        for (const auto& run : store.runsOfSession(1)) {
            const auto s = nlohmann::json::parse(run.summaryJson, nullptr, false);
            if (s.contains("engine"))
                QVERIFY(EngineProcess::groupMembers(s["engine"]["pid"].get<int>()).empty());
            if (run.workload != "load")
                continue;
            QCOMPARE(s["validity"][0]["status"].get<std::string>(), std::string("pass"));
            identities[run.arm].insert(s["engine_identity"].dump());
            // Every repetition its own prompts, the same for both arms: seed 1 + repetition.
            const auto params = nlohmann::json::parse(run.paramsJson);
            QCOMPARE(params["seed"].get<int>(), 1 + run.repetition);
        }
        QCOMPARE(identities.size(), std::size_t(2));
        for (const auto& id : identities["disk"])
            QVERIFY2(!identities["shm"].count(id), id.c_str());
    }

    // The disk arm's engine needs 3 s before it listens, and leaves a background child in its
    // group; the shm arm's engine is restarted for every run. Runs: A B B A A B B A.
    void enginesAreWaitedForRestartedAsPlannedAndStoppedWithTheirGroup() {
        const int port = test::freePort();
        const auto done =
            runPlan(writeLoadPlan("slow", simEngine(port, "--startup-delay 3s", "sleep 300 &"),
                                  simEngine(port) + "\nengine_restart = \"run\"", 2, "[1, 2]"),
                    "slow.db");
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QVERIFY2(done.err.contains("8 runs, 0 failed"), done.err.constData());
        QVERIFY2(done.err.contains("disk engine ready after"), done.err.constData());
        QCOMPARE(done.runs.size(), std::size_t(8));
        std::vector<int> pids;
        std::vector<nlohmann::json> identities;
        for (const auto& r : done.runs) {
            const auto s = summary(r);
            QVERIFY2(r.status == "completed", r.summaryJson.c_str());
            pids.push_back(s["engine"]["pid"].get<int>());
            identities.push_back(s["engine_identity"]);
            QCOMPARE(s["engine_identity"]["source"].get<std::string>(),
                     std::string("process_start_time_seconds"));
            QCOMPARE(s["validity"][0]["status"].get<std::string>(), std::string("pass"));
        }
        QVERIFY(summary(done.runs[0])["engine"]["log"].get<std::string>().find("listening on") !=
                std::string::npos);  // the engine's output is kept with the run
        QCOMPARE(pids[3], pids[4]);  // engine_restart = "arm": kept for consecutive disk runs
        QVERIFY(pids[1] != pids[2]); // "run": a fresh shm engine each time
        QVERIFY(pids[5] != pids[6]);
        for (std::size_t a = 0; a < 8; ++a)
            for (std::size_t b = 0; b < 8; ++b)
                if (done.runs[a].arm != done.runs[b].arm)
                    QVERIFY(identities[a] != identities[b]);
        // Nothing of any engine is left, not even the disk engine's background sleep.
        for (const int pid : pids)
            QVERIFY2(EngineProcess::groupMembers(pid).empty(), qPrintable(QString::number(pid)));
    }

    void anEngineThatDiesOrNeverAnswersFailsItsRunWithItsLog() {
        const QString dead = QString("engine_url = \"http://127.0.0.1:%1\"\n"
                                     "engine_start = 'echo loading weights; echo CUDA out of "
                                     "memory >&2; exit 3'")
                                 .arg(test::freePort());
        const int silentPort = test::freePort();
        const QString silent = QString("engine_url = \"http://127.0.0.1:%1\"\n"
                                       "engine_start = 'echo still loading; sleep 300'\n"
                                       "engine_ready = \"/health\"\n"
                                       "ready_timeout = \"1s\"")
                                   .arg(silentPort);
        const auto done = runPlan(writeLoadPlan("dead", dead, silent), "dead.db");
        QVERIFY2(done.err.contains("2 runs, 2 failed"), done.err.constData());
        QVERIFY2(done.err.contains("every run failed"), done.err.constData());
        QCOMPARE(done.exitCode, 1); // nothing was measured: not a success
        QVERIFY2(done.err.contains("CUDA out of memory"),
                 done.err.constData()); // shown to the user
        QCOMPARE(done.runs.size(), std::size_t(2));
        const auto a = summary(done.runs[0]);
        QCOMPARE(done.runs[0].status, std::string("failed"));
        QVERIFY2(a["error"].get<std::string>().find("exited (exit 3) before it was ready") !=
                     std::string::npos,
                 done.runs[0].summaryJson.c_str());
        QVERIFY(a["engine_log"].get<std::string>().find("CUDA out of memory") != std::string::npos);
        const auto b = summary(done.runs[1]);
        QCOMPARE(done.runs[1].status, std::string("failed"));
        QVERIFY2(b["error"].get<std::string>().find(
                     "not ready after 1.0 s: GET http://127.0.0.1:" + std::to_string(silentPort) +
                     "/health") != std::string::npos,
                 done.runs[1].summaryJson.c_str());
        QVERIFY(b["engine_log"].get<std::string>().find("still loading") != std::string::npos);
        QVERIFY(EngineProcess::groupMembers(b["engine_pid"].get<int>()).empty()); // its sleep too
    }

    // Something else on the shm arm's port (here this test) would answer for its engine.
    void aForeignProcessOnThePortFailsTheArmsRuns() {
        // Not inherited by tierscope: the holder is this process alone.
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QVERIFY(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        QVERIFY(::listen(fd, 4) == 0);
        QVERIFY(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        const int held = ntohs(address.sin_port);
        const auto done =
            runPlan(writeLoadPlan("foreign", simEngine(test::freePort()), simEngine(held), 2),
                    "foreign.db");
        ::close(fd);
        QVERIFY2(done.err.contains("4 runs, 2 failed"), done.err.constData());
        const std::string reason = "engine not started: 127.0.0.1:" + std::to_string(held) +
                                   " is already in use by pid " +
                                   std::to_string(QCoreApplication::applicationPid()) + " (";
        for (const auto& r : done.runs) {
            if (r.arm == "disk") {
                QCOMPARE(r.status, std::string("completed"));
                continue;
            }
            QCOMPARE(r.status, std::string("failed"));
            QVERIFY2(r.summaryJson.find(reason) != std::string::npos, r.summaryJson.c_str());
            QVERIFY2(r.summaryJson.find("tst_runcommand") != std::string::npos,
                     r.summaryJson.c_str()); // its command line
        }
    }

    // One engine answering both arms (started once, outside the plan): the comparison would
    // set it against itself.
    void armsAnsweredByOneEngineFailTheIdentityCheck() {
        const int port = test::freePort();
        QProcess engine;
        engine.start(TIERSCOPE_BINARY, {"sim-engine", "--port", QString::number(port)});
        QVERIFY(engine.waitForStarted());
        QByteArray banner;
        QTRY_VERIFY_WITH_TIMEOUT((banner += engine.readAllStandardOutput()).contains("listening"),
                                 30000);
        const QString url = QString("engine_url = \"http://127.0.0.1:%1\"").arg(port);
        const auto done = runPlan(writeLoadPlan("shared", url, url), "shared.db");
        engine.terminate();
        QVERIFY(engine.waitForFinished(30000));
        QVERIFY2(done.err.contains("INVALID: shared/load@c2, shm repetition 1: arm \"shm\" was "
                                   "answered by the engine that answered arm \"disk\""),
                 done.err.constData());
        QCOMPARE(done.runs.size(), std::size_t(2));
        const auto a = summary(done.runs[0]);
        const auto b = summary(done.runs[1]);
        QCOMPARE(a["validity"][0]["status"].get<std::string>(), std::string("pass"));
        QCOMPARE(b["validity"][0]["check"].get<std::string>(), std::string("engine_identity"));
        QCOMPARE(b["validity"][0]["status"].get<std::string>(), std::string("fail"));
        QCOMPARE(b["validity"][0]["other_arm"].get<std::string>(), std::string("disk"));
        QCOMPARE(a["engine_identity"], b["engine_identity"]);
    }

    // A load workload replaying a trace (dataset = "trace"): each arm's run sends the trace's
    // requests at its times, reports the schedule error and what the trace held.
    void aTraceWorkloadReplaysOnEachArm() {
        const QString plan =
            QString(R"(name = "trace"
repetitions = 1

[[arm]]
label = "a"
%1

[[arm]]
label = "b"
%2

[[workload]]
kind = "load"
dataset = "trace"
trace = "%3"
trace_format = "mooncake"
time_scale = 0.01
)")
                .arg(simEngine(test::freePort()), simEngine(test::freePort()),
                     QStringLiteral(TIERSCOPE_FIXTURES
                                    "/mooncake/mooncake_trace-fast25-layout.jsonl"));
        const QString path = m_dir.filePath("trace.toml");
        test::writeFile(path, plan.toUtf8());
        const auto done = runPlan(path, "trace.db");
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QCOMPARE(done.runs.size(), std::size_t(2));
        for (const auto& run : done.runs) {
            const auto s = summary(run);
            QCOMPARE(s["completed"].get<int>(), 6);
            QCOMPARE(s["trace"]["scheduled"].get<int>(), 6);
            QCOMPARE(s["trace"]["malformed"].get<int>(), 5);
            QVERIFY(s["p99_schedule_error_ms"].is_number());
            const auto params = nlohmann::json::parse(run.paramsJson);
            QCOMPARE(params["trace_format"].get<std::string>(), std::string("mooncake"));
        }
    }

    // A cold-recovery experiment: two arms whose engines (simulators) keep their KV in {path}/kv,
    // `extraA` and `extraB` more TOML lines (engine options first, as sim-engine arguments).
    QString writeColdPlan(const QString& name, int port, const QString& simA, const QString& simB,
                          const QString& pathB, const QString& extra = {},
                          int workloadKvBytesPerToken = 65536) {
        const QString arm = R"([[arm]]
label = "%1"
path = "%2"
setup = "mkdir -p {path}/kv"
%3
reset_prefix_cache = true
reset = "echo clearing $TIERSCOPE_ARM"
)";
        const QString common = "--kv-dir {path}/kv --kv-bytes-per-token 65536 ";
        const QString plan =
            "name = \"" + name + "\"\nrepetitions = 1\n" + extra + "\n" +
            arm.arg("a", m_dir.filePath(name + "-a"), simEngine(port, common + simA)) +
            arm.arg("b", pathB, simEngine(port, common + simB)) +
            QString(R"(
[[workload]]
kind = "cold-recovery"
documents = 4
document_tokens = 512
questions = 2
question_tokens = 8
output_len = 4
kv_bytes_per_token = %1
concurrency = 2
)")
                .arg(workloadKvBytesPerToken);
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, plan.toUtf8());
        return path;
    }
    static const nlohmann::json* check(const nlohmann::json& summary, const std::string& name) {
        for (const auto& c : summary["validity"])
            if (c.value("check", "") == name)
                return &c;
        return nullptr;
    }

    // Populate, reset, measure: the disk arm reads its KV back from its device and is slower
    // than the arm whose KV lies in RAM (/dev/shm); both phases and the resets are stored.
    // The disk arm's tier is paced to 64 MiB/s (0.5 s per 32 MiB document), so which arm is
    // slower is settled by orders of magnitude, not by this machine's disk and page cache.
    void coldRecoveryPopulatesResetsAndMeasuresFromStorage() {
        const auto done = runPlan(
            writeColdPlan("cold", test::freePort(), "--kv-read-rate 64MiB", {}, m_shm + "/cold"),
            "cold.db");
        QVERIFY2(done.exitCode == 0, done.err.constData());
        QCOMPARE(done.runs.size(), std::size_t(4)); // populate and measured, per arm
        std::map<std::string, nlohmann::json> measured;
        for (const auto& run : done.runs) {
            const auto s = summary(run);
            if (run.status == "populate") {
                QCOMPARE(s["completed"].get<int>(), 4); // one request per document
                continue;
            }
            QCOMPARE(run.status, std::string("completed"));
            QCOMPARE(s["completed"].get<int>(), 8); // 2 questions x 4 documents
            QCOMPARE(s["populate"]["completed"].get<int>(), 4);
            QCOMPARE(s["reset"].size(), std::size_t(2));
            QCOMPARE(s["reset"][0]["step"].get<std::string>(), std::string("reset_prefix_cache"));
            QVERIFY(s["reset"][0]["ok"].get<bool>() && s["reset"][1]["ok"].get<bool>());
            const auto* cache = check(s, "cache_evidence");
            QVERIFY2(cache && (*cache)["status"] == "pass", s["validity"].dump().c_str());
            QVERIFY((*cache)["hit_tokens"].get<double>() > 0);
            measured[run.arm] = s;
        }
        QVERIFY2(done.err.contains("TTFT p50: populate"), done.err.constData());
        // The disk arm's device read at least the KV of every document.
        const auto* storage = check(measured["a"], "storage_evidence");
        QVERIFY2(storage && (*storage)["status"] == "pass",
                 measured["a"]["validity"].dump().c_str());
        QVERIFY((*storage)["device_read_bytes"].get<double>() >= 4 * 512 * 65536.0);
        // tmpfs has no block device: said, not passed.
        QCOMPARE((*check(measured["b"], "storage_evidence"))["status"].get<std::string>(),
                 std::string("warn"));
        QVERIFY2(measured["a"]["median_ttft_ms"].get<double>() >
                     measured["b"]["median_ttft_ms"].get<double>(),
                 (measured["a"].dump() + "\n" + measured["b"].dump()).c_str());
        // Each arm's engine was recorded during its runs: the engine's own TTFT breakdown is a
        // KPI of each measured run, and the paced disk tier shows in its KV retrieve share.
        std::map<std::string, std::map<std::string, double>> kpis;
        for (const auto& run : done.runs)
            if (run.status == "completed") {
                kpis[run.arm] = kpisOf("cold.db", run);
                // Exactly the run's own requests: none of the populate phase before it, none
                // of its last ones lost after its end.
                Store store(m_dir.filePath("cold.db").toStdString(), Store::Mode::ReadOnly);
                QCOMPARE(RunTimeline::read(store, run).ttft.requests().value_or(-1), 8.0);
            }
        for (const char* arm : {"a", "b"})
            for (const char* kpi : {"engine_ttft_mean", "engine_queue_mean", "engine_prefill_mean",
                                    "storage_wait_mean", "storage_wait_share",
                                    "engine_prefill_compute_mean", "engine_ttft_residual_mean"})
                QVERIFY2(kpis[arm].count(kpi), (std::string(arm) + " has no " + kpi).c_str());
        // 4 documents of 32 MiB read at 64 MiB/s over 8 requests: at least 0.25 s a request.
        QVERIFY2(kpis["a"]["storage_wait_mean"] >= 0.25,
                 std::to_string(kpis["a"]["storage_wait_mean"]).c_str());
        QVERIFY2(kpis["a"]["storage_wait_share"] > kpis["b"]["storage_wait_share"],
                 (std::to_string(kpis["a"]["storage_wait_share"]) + " vs " +
                  std::to_string(kpis["b"]["storage_wait_share"]) + "; retrieve " +
                  std::to_string(kpis["a"]["storage_wait_mean"]) + " vs " +
                  std::to_string(kpis["b"]["storage_wait_mean"]))
                     .c_str());
        // The parts of each arm's mean TTFT add up to it, the residual included.
        for (const char* arm : {"a", "b"}) {
            auto& k = kpis[arm];
            const double sum = k["engine_queue_mean"] + k["storage_wait_mean"] +
                               k["engine_prefill_compute_mean"] + k["engine_ttft_residual_mean"];
            QVERIFY2(std::abs(sum - k["engine_ttft_mean"]) < 1e-6,
                     (std::string(arm) + ": " + std::to_string(sum) + " vs " +
                      std::to_string(k["engine_ttft_mean"]))
                         .c_str());
        }
        QVERIFY(kpis["a"]["engine_ttft_mean"] > kpis["b"]["engine_ttft_mean"]);
        // The engine's mean TTFT agrees with the client's own to the request's network time.
        QVERIFY2(std::abs(kpis["a"]["engine_ttft_mean"] - kpis["a"]["ttft_mean"]) < 0.1,
                 (std::to_string(kpis["a"]["engine_ttft_mean"]) + " vs " +
                  std::to_string(kpis["a"]["ttft_mean"]))
                     .c_str());
    }

    // Two ways a "cold" run is not served by its storage: a CPU tier that holds every document,
    // and a recompute fallback. Each fails its check and the comparison is INVALID (exit 13).
    // The workload states 1 MiB of KV a token (the simulator stores 64 KiB): the test disk is
    // shared with every other test, whose reads (21 MB in one CI run, 16 % of 134 MB) count as
    // the device's; against the 2.1 GB stated they stay far below the 10 % line.
    void aCpuTierOrARecomputeFallbackMakesTheComparisonInvalid() {
        const auto done =
            runPlan(writeColdPlan("warm", test::freePort(), "--cpu-kv-capacity-tokens 100000",
                                  "--recompute-fallback --prefill-tokens-per-s 1e9",
                                  m_dir.filePath("warm-b"), {}, 1 << 20),
                    "warm.db");
        QVERIFY2(done.exitCode == 13, done.err.constData());
        QVERIFY2(done.err.contains("INVALID"), done.err.constData());
        int seen = 0;
        for (const auto& run : done.runs) {
            if (run.status != "completed")
                continue;
            const auto s = summary(run);
            if (run.arm == "a") {
                const auto* storage = check(s, "storage_evidence");
                QVERIFY2(storage && (*storage)["status"] == "fail", s["validity"].dump().c_str());
                ++seen;
            } else {
                const auto* cache = check(s, "cache_evidence");
                QVERIFY2(cache && (*cache)["status"] == "fail", s["validity"].dump().c_str());
                QCOMPARE((*cache)["recompute_fallback"].get<bool>(), true);
                ++seen;
            }
        }
        QCOMPARE(seen, 2);
    }

    // A reset step that fails fails its run: it would not have been cold.
    void aFailingResetFailsTheRun() {
        const int port = test::freePort();
        const auto done =
            runPlan(writeLoadPlan("badreset", simEngine(port) + "\nreset = \"echo cannot; exit 3\"",
                                  simEngine(port) + "\nreset_prefix_cache = true"),
                    "badreset.db");
        QCOMPARE(done.runs.size(), std::size_t(2));
        for (const auto& run : done.runs) {
            const auto s = summary(run);
            if (run.arm == "disk") {
                QCOMPARE(run.status, std::string("failed"));
                QVERIFY2(s["error"].get<std::string>().find("reset failed: exit 3: cannot") !=
                             std::string::npos,
                         run.summaryJson.c_str());
            } else {
                QCOMPARE(run.status, std::string("completed"));
                QCOMPARE(s["reset"][0]["ok"].get<bool>(), true);
            }
        }
    }

    void ctrlCStopsTheRunningEngineAndItsGroup() {
        const int port = test::freePort();
        const QString plan = writeLoadPlan("ctrlc", simEngine(port, {}, "sleep 300 &"),
                                           simEngine(port, {}, "sleep 300 &"), 50);
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("ctrlc.db"), "run", plan});
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY2_WITH_TIMEOUT((err += p.readAllStandardError()).contains("[3/"),
                                  err.constData(), 120000);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        err += p.readAllStandardError();
        QCOMPARE(p.exitCode(), 1);
        // "<arm> engine: pid N, waiting for ..." for every engine started
        const QRegularExpression started("engine: pid (\\d+),");
        int engines = 0;
        for (auto m = started.globalMatch(QString::fromUtf8(err)); m.hasNext(); ++engines) {
            const int pid = m.next().captured(1).toInt();
            QVERIFY2(EngineProcess::groupMembers(pid).empty(), err.constData());
        }
        QVERIFY2(engines >= 2, err.constData());
    }

    // Ctrl-C during a setup used to wait for the setup to end (here: its timeout), and
    // teardown never ran.
    void ctrlCDuringASetupStopsItsGroupRunsTeardownAndKeepsCompletedRuns() {
        const QString d = m_dir.filePath("ctrlc-setup");
        QVERIFY(QDir().mkpath(d));
        const QString arm =
            QString("timeout = \"300s\"\n"
                    "setup = 'mkdir -p {path}; n=$(cat %1/count 2>/dev/null || echo 0); "
                    "n=$((n+1)); echo $n > %1/count; if [ $n -ge 2 ]; then sleep 300 & "
                    "echo $! > %1/setup-bg; sleep 300; fi'\n"
                    "teardown = 'echo torn down >> %1/teardown-log'")
                .arg(d);
        const QString db = m_dir.filePath("ctrlc-setup.db");
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", db, "run", writePlan("ctrlcsetup", arm)});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readInt(d + "/setup-bg") > 0, 120000);
        const int background = readInt(d + "/setup-bg");
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY2(p.waitForFinished(30000), "still waiting for the setup");
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!alive(background), 5000);
        QFile log(d + "/teardown-log");
        QVERIFY(log.open(QIODevice::ReadOnly));
        QCOMPARE(log.readAll().count('\n'), 2); // after the first A run, and the cancelled one
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(1);
        QCOMPARE(runs.size(), std::size_t(4));
        for (int i = 0; i < 3; ++i)
            QCOMPARE(runs[i].status, std::string("completed"));
        QCOMPARE(runs[3].status, std::string("cancelled"));
        QVERIFY2(runs[3].summaryJson.find("setup cancelled") != std::string::npos,
                 runs[3].summaryJson.c_str());
        QVERIFY(store.session(1)->endNs);
        QVERIFY2(err.contains("INCOMPLETE"), err.constData());
    }

    // The first Ctrl-C stops the setup and starts the teardown; a second one during the
    // teardown ends tierscope, and takes the teardown's processes with it.
    void aSecondCtrlCKillsTheTeardownsProcesses() {
        const QString d = m_dir.filePath("ctrlc-twice");
        QVERIFY(QDir().mkpath(d));
        const QString arm =
            QString("timeout = \"300s\"\n"
                    "setup = 'mkdir -p {path}; sleep 300 & echo $! > %1/setup-bg; sleep 300'\n"
                    "teardown = 'sleep 300 & echo $! > %1/teardown-bg; sleep 300'")
                .arg(d);
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                {"--db", m_dir.filePath("ctrlc-twice.db"), "run", writePlan("ctrlctwice", arm)});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(readInt(d + "/setup-bg") > 0, 120000);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QTRY_VERIFY_WITH_TIMEOUT(readInt(d + "/teardown-bg") > 0, 30000);
        const int setupChild = readInt(d + "/setup-bg");
        const int teardownChild = readInt(d + "/teardown-bg");
        QTRY_VERIFY_WITH_TIMEOUT(!alive(setupChild), 5000);
        QVERIFY(alive(teardownChild)); // the first Ctrl-C lets the teardown run
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::CrashExit); // ended by the second SIGINT
        QTRY_VERIFY_WITH_TIMEOUT(!alive(teardownChild), 5000);
    }

    void dryRunPrintsTheOrder() {
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"run", writePlan("dry", ""), "--dry-run"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QByteArray out = p.readAllStandardOutput();
        // Four runs, the two setup commands the plan runs, then its gate's power at three
        // assumed CVs.
        QCOMPARE(out.count('\n'), 9);
        QCOMPARE(out.count("power: G1 model_load_time <= 0.9x at CV "), 3);
        // The path as the shell gets it: quoted, one word.
        QVERIFY2(out.contains("runs: disk setup: mkdir -p '" + m_dir.path().toUtf8() +
                              "/disk' && echo setting up $TIERSCOPE_ARM"),
                 out.constData());
    }
};

QTEST_GUILESS_MAIN(TestRunCommand)
#include "tst_runcommand.moc"
