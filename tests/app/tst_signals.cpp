#include "TestSupport.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <csignal>
#include <functional>
#include <memory>
#include <random>
#include <set>

using namespace tierscope;

// SIGTERM and SIGINT at a random moment, 0 to 2 s after the start, to every command that runs
// until stopped: each must exit with its documented status within a bound, and leave a
// workspace that opens, passes integrity_check and holds no session or run still "running".
// TIERSCOPE_SIGNAL_TRIALS (default 30) trials a command, TIERSCOPE_SIGNAL_SEED repeats a run.
//
// The children start with both signals blocked, released by tierscope's main() once its
// handler is in place: a signal before main() (while the dynamic loader runs) would otherwise
// end the process by its default action, which says nothing about tierscope. Blocking them also
// checks that tierscope unblocks them, as a parent may leave them blocked.
class TestSignals : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir{QDir::currentPath() + "/signals-XXXXXX"};
    std::unique_ptr<QProcess> m_engine; // the simulator `load` sends to
    int m_enginePort = 0;
    QString m_kvData;

    static int trials() { return qEnvironmentVariableIntValue("TIERSCOPE_SIGNAL_TRIALS") ?: 30; }

    struct Trial {
        QStringList args;
        QString db; // empty: the command writes no workspace
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    };
    struct Running {
        std::unique_ptr<QProcess> process;
        Trial trial;
        int signal = 0;
        qint64 startedAtMs = 0;
        qint64 sendAtMs = 0;
        qint64 sentAtMs = -1;
        QByteArray output;
    };

    // Why the workspace is not consistent, or empty.
    static QString inconsistency(const QString& db) {
        if (!QFile::exists(db))
            return {}; // stopped before it made one
        try {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            auto check = store.db().prepare("PRAGMA integrity_check");
            if (!check.step() || check.columnText(0) != "ok")
                return "integrity_check: " + QString::fromStdString(check.columnText(0));
            for (const auto& s : store.sessions()) {
                if (!s.endNs)
                    return QString("session %1 has no end").arg(s.id);
                for (const auto& r : store.runsOfSession(s.id))
                    if (r.status == "running" || !r.endNs)
                        return QString("run %1 is still running").arg(r.id);
            }
        } catch (const std::exception& e) {
            return QString("cannot open it: ") + e.what();
        }
        return {};
    }

    // Runs `trials()` trials, `parallel` at a time, each signalled at a random moment in
    // [0, 2 s); `statuses` are the documented exit statuses, `check` (optional) adds what the
    // status implies about the workspace.
    void signalTrials(const char* command, const std::function<Trial(int)>& make,
                      const std::set<int>& statuses,
                      const std::function<QString(const Trial&, int)>& check = {},
                      int parallel = 4) {
        const unsigned seed = qEnvironmentVariableIsSet("TIERSCOPE_SIGNAL_SEED")
                                  ? qEnvironmentVariableIntValue("TIERSCOPE_SIGNAL_SEED")
                                  : std::random_device{}();
        std::mt19937 random(seed);
        std::uniform_int_distribution<int> delay(0, 1999);
        const qint64 boundMs = 20000; // generous: a busy machine, or the sanitizer build
        int done = 0;
        int started = 0;
        qint64 slowestMs = 0;
        std::vector<Running> running;
        QElapsedTimer clock;
        clock.start();
        while (done < trials()) {
            while (started < trials() && static_cast<int>(running.size()) < parallel) {
                Running r;
                r.trial = make(started);
                r.signal = started % 2 ? SIGINT : SIGTERM;
                r.process = std::make_unique<QProcess>();
                r.process->setProcessChannelMode(QProcess::MergedChannels);
                r.process->setProcessEnvironment(r.trial.env);
                r.process->setChildProcessModifier([] {
                    sigset_t both;
                    sigemptyset(&both);
                    sigaddset(&both, SIGINT);
                    sigaddset(&both, SIGTERM);
                    sigprocmask(SIG_BLOCK, &both, nullptr);
                });
                r.process->start(TIERSCOPE_BINARY, r.trial.args);
                QVERIFY(r.process->waitForStarted());
                r.startedAtMs = clock.elapsed();
                r.sendAtMs = r.startedAtMs + delay(random);
                running.push_back(std::move(r));
                ++started;
            }
            QTest::qWait(2);
            for (auto it = running.begin(); it != running.end();) {
                auto& r = *it;
                r.output += r.process->readAll();
                const qint64 now = clock.elapsed();
                if (r.sentAtMs < 0 && now >= r.sendAtMs) {
                    QVERIFY2(r.process->state() == QProcess::Running,
                             qPrintable(QString("%1 ended before the signal: %2")
                                            .arg(r.trial.args.join(' '), r.output)));
                    ::kill(static_cast<pid_t>(r.process->processId()), r.signal);
                    r.sentAtMs = now;
                }
                if (r.sentAtMs >= 0 && r.process->state() == QProcess::NotRunning) {
                    r.output += r.process->readAll();
                    const QString what = QString("%1 (%2 after %3 ms)")
                                             .arg(r.trial.args.join(' '))
                                             .arg(r.signal == SIGINT ? "SIGINT" : "SIGTERM")
                                             .arg(r.sentAtMs - r.startedAtMs);
                    QVERIFY2(r.process->exitStatus() == QProcess::NormalExit,
                             qPrintable(what + " was killed by its signal: " + r.output));
                    QVERIFY2(statuses.count(r.process->exitCode()),
                             qPrintable(QString("%1 exited %2: %3")
                                            .arg(what)
                                            .arg(r.process->exitCode())
                                            .arg(QString::fromUtf8(r.output))));
                    if (!r.trial.db.isEmpty()) {
                        const QString why = inconsistency(r.trial.db);
                        QVERIFY2(why.isEmpty(), qPrintable(what + ": workspace " + why));
                    }
                    if (check) {
                        const QString why = check(r.trial, r.process->exitCode());
                        QVERIFY2(why.isEmpty(), qPrintable(what + ": " + why));
                    }
                    slowestMs = std::max(slowestMs, now - r.sentAtMs);
                    it = running.erase(it);
                    ++done;
                    continue;
                }
                if (r.sentAtMs >= 0 && now - r.sentAtMs > boundMs) {
                    r.process->kill();
                    r.process->waitForFinished();
                    QFAIL(qPrintable(QString("%1 did not exit within %2 s of its signal: %3")
                                         .arg(r.trial.args.join(' '))
                                         .arg(boundMs / 1000)
                                         .arg(QString::fromUtf8(r.output))));
                }
                ++it;
            }
        }
        qInfo("seed %u: %s, %d of %d trials exited with a documented status and a consistent "
              "workspace; slowest exit %lld ms after its signal",
              seed, command, done, trials(), static_cast<long long>(slowestMs));
    }

    Trial withDb(const QString& name, int i, QStringList args) {
        Trial t;
        t.db = m_dir.filePath(QString("%1-%2.db").arg(name).arg(i));
        args.prepend(t.db);
        args.prepend("--db");
        t.args = args;
        return t;
    }

    // Status 1 or 0 must match what the workspace says of the run.
    static QString runStatusMatches(const Trial& t, int code, const std::string& cancelled,
                                    const std::string& finished) {
        if (!QFile::exists(t.db))
            return code == 0 ? QString("exit 0 without a workspace") : QString();
        Store store(t.db.toStdString(), Store::Mode::ReadOnly);
        for (const auto& s : store.sessions())
            for (const auto& r : store.runsOfSession(s.id)) {
                const std::string& expected = code == 0 ? finished : cancelled;
                if (r.status != expected && !(code != 0 && r.status == "failed"))
                    return QString("exit %1, but run %2 is %3")
                        .arg(code)
                        .arg(r.id)
                        .arg(QString::fromStdString(r.status));
            }
        return {};
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_enginePort = test::freePort();
        m_engine = std::make_unique<QProcess>();
        m_engine->start(TIERSCOPE_BINARY, {"sim-engine", "--port", QString::number(m_enginePort)});
        QVERIFY(m_engine->waitForReadyRead(30000));
        m_kvData = m_dir.filePath("kv");
        QVERIFY(QDir().mkpath(m_kvData));
        QProcess prepare;
        prepare.start(TIERSCOPE_BINARY,
                      {"storage", "prepare", "kv-restore", "--path", m_kvData, "--layers", "2",
                       "--kv-heads", "2", "--head-dim", "64", "--tokens", "512", "--prefixes", "2",
                       "--buffered", "--quiet"});
        QVERIFY(prepare.waitForFinished(60000));
        QVERIFY2(prepare.exitCode() == 0, prepare.readAllStandardError().constData());
    }
    void cleanupTestCase() {
        if (m_engine) {
            m_engine->terminate();
            QVERIFY(m_engine->waitForFinished(20000));
        }
    }

    void record() {
        signalTrials("record",
                     [&](int i) {
                         return withDb("record", i, {"record", "--interval", "100ms", "--quiet"});
                     },
                     {0});
    }

    void agent() {
        signalTrials("agent",
                     [](int) {
                         Trial t;
                         t.args = {"agent", "--listen", "127.0.0.1:0", "--interval", "100ms"};
                         return t;
                     },
                     {0});
    }

    void simEngine() {
        signalTrials("sim-engine",
                     [](int) {
                         Trial t;
                         t.args = {"sim-engine", "--port", "0"};
                         return t;
                     },
                     {0});
    }

    // Exit 0 when a request completed before the stop, 1 when none did; the run is "cancelled"
    // either way.
    void load() {
        signalTrials(
            "load",
            [&](int i) {
                return withDb("load", i,
                              {"load", "--url", QString("http://127.0.0.1:%1").arg(m_enginePort),
                               "--model", "sim", "--concurrency", "2", "--requests", "2000",
                               "--input-len", "8", "--output-len", "4"});
            },
            {0, 1}, [](const Trial& t, int) { return runStatusMatches(t, 1, "cancelled", ""); });
    }

    // Cancelled while it ran: exit 1, the experiment incomplete.
    void run() {
        signalTrials(
            "run",
            [&](int i) {
                const QString plan = m_dir.filePath(QString("plan-%1.toml").arg(i));
                test::writeFile(plan, QString(R"(name = "signals"
repetitions = 50
warmup = 0

[[arm]]
label = "a"
path = "%1/run-%2-a"
setup = "mkdir -p {path}; sleep 0.2"
teardown = "true"

[[arm]]
label = "b"
path = "%1/run-%2-b"
setup = "mkdir -p {path}; sleep 0.2"

[[workload]]
kind = "model-load"
size = "1MiB"
files = 1
)")
                                          .arg(m_dir.path())
                                          .arg(i)
                                          .toUtf8());
                return withDb("run", i, {"run", plan});
            },
            {1}, {}, 3);
    }

    // Exit 1 and the run "cancelled", or 0 and "completed" when it ended before the signal.
    void storageRun() {
        signalTrials(
            "storage run",
            [&](int i) {
                return withDb("storage", i,
                              {"storage", "run", "kv-restore", "--path", m_kvData, "--requests",
                               "1000000", "--buffered", "--quiet"}); // far past 2 s anywhere
            },
            {0, 1},
            [](const Trial& t, int code) {
                return runStatusMatches(t, code, "cancelled", "completed");
            });
    }

    // The window closes as the user would close it: the recording stops and is kept.
    void gui() {
        signalTrials(
            "gui",
            [&](int i) {
                Trial t = withDb("gui", i, {"gui", "--window", "1m"});
                const QString home = m_dir.filePath(QString("home-%1").arg(i));
                QDir().mkpath(home);
                t.env.insert("HOME", home);
                t.env.insert("XDG_CONFIG_HOME", home + "/.config");
                t.env.insert("XDG_DATA_HOME", home + "/.local/share");
                t.env.insert("QT_QPA_PLATFORM", "offscreen");
                return t;
            },
            {0}, {}, 2);
    }
};

QTEST_GUILESS_MAIN(TestSignals)
#include "tst_signals.moc"
