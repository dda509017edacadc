#include "SshTestServer.h"
#include "TestSupport.h"
#include "collectors/base/SysfsReader.h"
#include "core/store/Store.h"
#include "core/util/WallClock.h"
#include "remote/RemoteMirror.h"
#include "remote/SshSession.h"
#include "ui/MainWindow.h"
#include "ui/experiment/ExperimentDialog.h"

#include <QDeadlineTimer>
#include <QDirIterator>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <arpa/inet.h>
#include <atomic>
#include <csignal>
#include <fstream>
#include <memory>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>

using namespace tierscope;

// The remote target through a real sshd on loopback: the CLI and the library connect, stream
// and meet each failure with its one line.
class TestSsh : public QObject {
    Q_OBJECT
  private:
    test::SshTestServer m_server;
    QTemporaryDir m_local;
    QTemporaryDir m_work{QDir::currentPath() + "/ssh-XXXXXX"}; // on a disk: O_DIRECT works
    bool m_up = false;

    struct Result {
        int code = -1;
        QByteArray out;
        QByteArray err;
    };
    Result tierscope(const QStringList& args, const QProcessEnvironment& env,
                     int timeoutMs = 90000) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(TIERSCOPE_BINARY, args);
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {-2, p.readAllStandardOutput(), p.readAllStandardError()};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                p.readAllStandardOutput(), p.readAllStandardError()};
    }
    QString localDb() const { return m_local.filePath("local.db"); }

    // Two arms on the build tree's disk; each setup sleeps `sleepS`, so a run can be caught
    // mid-way.
    QString writePlan(const QString& name, int repetitions, int sleepS) {
        const QString plan = QString("name = \"%1\"\nrepetitions = %2\nwarmup = 0\n"
                                     "[[arm]]\nlabel = \"a\"\npath = \"%3/%1-a\"\n"
                                     "setup = \"mkdir -p {path} && sleep %4\"\n"
                                     "[[arm]]\nlabel = \"b\"\npath = \"%3/%1-b\"\n"
                                     "setup = \"mkdir -p {path} && sleep %4\"\n"
                                     "[[workload]]\nkind = \"model-load\"\nsize = \"4MiB\"\n"
                                     "files = 1\n")
                                 .arg(name)
                                 .arg(repetitions)
                                 .arg(m_work.path())
                                 .arg(sleepS);
        const QString path = m_local.filePath(name + ".toml");
        test::writeFile(path, plan.toUtf8());
        return path;
    }
    // Kills the ssh master connections this suite's clients hold: what a dropped network
    // does. Returns how many there were.
    static int dropConnection() {
        int killed = 0;
        for (const pid_t pid : test::SshTestServer::descendants()) {
            // A process may end while its cmdline is read (ESRCH): that read is empty, not
            // an exception out of the stream.
            const std::string cmdline =
                SysfsReader::readFile("/proc/" + std::to_string(pid) + "/cmdline").value_or("");
            if (cmdline.find("ControlMaster=yes") != std::string::npos &&
                cmdline.find("ssh") == 0) {
                ::kill(pid, SIGKILL);
                ++killed;
            }
        }
        return killed;
    }
    // The experiment dialog for writePlan(name, ...), set to run on the test server; its own
    // workspace is <name>-dialog.db, which a run on the server never creates.
    std::unique_ptr<ExperimentDialog> remoteDialog(const QString& name, int repetitions,
                                                   int sleepS) {
        QFile plan(writePlan(name, repetitions, sleepS));
        const QString text =
            plan.open(QIODevice::ReadOnly) ? QString::fromUtf8(plan.readAll()) : QString();
        auto dialog = std::make_unique<ExperimentDialog>(m_local.filePath(name + "-dialog.db"),
                                                         name + ".toml", text);
        dialog->setTarget(m_server.target());
        dialog->setRemoteCommand(TIERSCOPE_BINARY, m_server.environment());
        return dialog;
    }
    // The job is under way on the server: a run shows running or done. On a busy machine the
    // first run can pass from pending to completed between two looks, so waiting for "running"
    // alone once waited out the whole function's time.
    static bool underWay(ExperimentDialog& dialog) {
        if (dialog.remoteJob().isEmpty())
            return false;
        for (int row = 0; row < dialog.runTable()->rowCount(); ++row)
            if (const auto* item = dialog.runTable()->item(row, 4);
                item && (item->text() == "running" || item->text() == "completed"))
                return true;
        return false;
    }
    // What the dialog shows, for a failed wait.
    static QString shown(ExperimentDialog& dialog) {
        return dialog.runTable()->item(0, 4)->text() + " | " + dialog.statusText() + " | " +
               dialog.remoteLog()->toPlainText();
    }
    static QString jobId(const QByteArray& err) {
        const QRegularExpression re("job ([0-9]+-[0-9]+) on ");
        const auto m = re.match(QString::fromUtf8(err));
        return m.hasMatch() ? m.captured(1) : QString();
    }
    // Whether the job's exit status is there, waiting up to `waitMs`.
    bool jobEnded(const QString& id, int waitMs = 60000) const {
        const QString exit = m_server.path("server/tierscope/jobs/" + id + "/exit");
        QElapsedTimer t;
        t.start();
        while (!QFile::exists(exit) && t.elapsed() < waitMs)
            QTest::qWait(100);
        return QFile::exists(exit);
    }
    static void expectOneLine(const Result& r, int code, const char* needle) {
        QVERIFY2(r.code == code,
                 qPrintable(QString("exit %1: %2").arg(r.code).arg(QString(r.err))));
        QVERIFY2(r.err.trimmed().count('\n') == 0, r.err.constData());
        QVERIFY2(r.err.contains(needle), r.err.constData());
    }
    static QString hostName() {
        char buffer[256] = {};
        gethostname(buffer, sizeof buffer - 1);
        return buffer;
    }

  private slots:
    void initTestCase() {
        if (!test::SshTestServer::available())
            QSKIP("needs /usr/sbin/sshd (openssh-server) and root");
        QString why;
        QVERIFY2(m_server.start(&why), qPrintable(why));
        m_up = true;
    }
    void cleanupTestCase() {
        m_server.stop();
        QVERIFY2(test::SshTestServer::descendants().empty(), "a child outlived the tests");
    }

    void refusesAHostileTargetBeforeRunningSsh() {
        const auto r = tierscope({"--db", localDb(), "record", "--target",
                                  "ssh://-oProxyCommand=touch " + m_local.filePath("pwned"),
                                  "--duration", "1s"},
                                 m_server.environment());
        expectOneLine(r, 2, "host");
        QVERIFY(!QFile::exists(m_local.filePath("pwned")));
    }

    void unreachableHostIsOneLine() {
        const auto r = tierscope({"--db", localDb(), "record", "--target",
                                  QString("ssh://root@127.0.0.1:%1").arg(test::freePort()),
                                  "--duration", "1s"},
                                 m_server.environment());
        expectOneLine(r, 14, "cannot reach 127.0.0.1");
        QVERIFY(r.err.contains("connection refused"));
    }

    // A server that accepts the connection and never speaks: Ctrl-C ends the attempt at once
    // (it waited for ssh's 10 s ConnectTimeout), and the private ssh directory goes with it.
    void ctrlCWhileConnectingToASilentServer() {
        const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in at{};
        at.sin_family = AF_INET;
        at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof at;
        QVERIFY(bind(listener, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0 &&
                listen(listener, 4) == 0 &&
                getsockname(listener, reinterpret_cast<sockaddr*>(&at), &size) == 0);
        const QString target = QString("ssh://root@127.0.0.1:%1").arg(ntohs(at.sin_port));
        QTemporaryDir runtime;
        auto env = m_server.environment();
        env.insert("XDG_RUNTIME_DIR", runtime.path());
        env.insert("TMPDIR", runtime.path());
        std::vector<int> accepted;
        for (const QStringList& command :
             {QStringList{"pull", target}, QStringList{"record", "--target", target}}) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(TIERSCOPE_BINARY, QStringList{"--db", localDb()} + command);
            QVERIFY(p.waitForStarted());
            int fd = -1;
            QDeadlineTimer connecting(30000);
            while ((fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) < 0 &&
                   !connecting.hasExpired() && p.state() == QProcess::Running)
                QTest::qWait(10);
            QVERIFY2(fd >= 0, p.readAllStandardError().constData());
            accepted.push_back(fd); // held open, never answered
            ::kill(static_cast<pid_t>(p.processId()), SIGINT);
            QVERIFY2(p.waitForFinished(8000), qPrintable(command.first()));
            QCOMPARE(p.exitCode(), 128 + SIGINT);
            QVERIFY2(p.readAllStandardError().contains("interrupted"), qPrintable(command.first()));
            QCOMPARE(QDir(runtime.path()).entryList({"tierscope-ssh-*"}, QDir::AllEntries),
                     QStringList());
        }
        for (const int fd : accepted)
            close(fd);
        close(listener);
    }

    void refusedKeyIsOneLine() {
        const auto r = tierscope(
            {"--db", localDb(), "record", "--target", m_server.target(), "--duration", "1s"},
            m_server.environment("ssh_config_other"));
        expectOneLine(r, 14, "refused the login of root");
        QVERIFY(r.err.contains("password"));
    }

    void missingRemoteBinaryIsOneLine() {
        auto env = m_server.environment();
        env.insert("TIERSCOPE_REMOTE_BINARY", "/nonexistent/bin/tierscope");
        const auto r = tierscope(
            {"--db", localDb(), "record", "--target", m_server.target(), "--duration", "1s"}, env);
        expectOneLine(r, 14, "tierscope is not installed on 127.0.0.1");
    }

    void incompatibleServerIsOneLine() {
        const QString fake = m_local.filePath("tierscope-v9");
        test::writeFile(fake, "#!/bin/sh\necho '{\"type\":\"hello\",\"format\":9,\"tool\":"
                              "\"tierscope\",\"version\":\"9.0.0\",\"host\":\"h\"}'\n");
        QFile::setPermissions(fake, QFile::ReadOwner | QFile::ExeOwner);
        auto env = m_server.environment();
        env.insert("TIERSCOPE_REMOTE_BINARY", fake);
        const auto r = tierscope(
            {"--db", localDb(), "record", "--target", m_server.target(), "--duration", "1s"}, env);
        expectOneLine(r, 14, "speaks stream format 9");
        QVERIFY(r.err.contains("9.0.0"));
    }

    // The server records into its own workspace; the workstation's mirror holds the same
    // samples at the same times, labelled with the server's host name.
    void streamsARecordingIntoBothWorkspaces() {
        const QString db = m_local.filePath("stream.db");
        const auto r = tierscope({"--db", db, "record", "--target", m_server.target(), "--duration",
                                  "6s", "--interval", "200ms", "--label", "rack"},
                                 m_server.environment());
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("mirrored here as session"), r.err.constData());

        Store local(db.toStdString(), Store::Mode::ReadOnly);
        const auto sessions = local.sessions();
        QCOMPARE(sessions.size(), std::size_t(1));
        const auto& mirror = sessions.front();
        QCOMPARE(QString::fromStdString(mirror.host), hostName());
        QCOMPARE(mirror.tags, std::string("ssh-mirror"));
        QVERIFY(mirror.endNs.has_value());
        QVERIFY(mirror.notes.find("ssh://root@127.0.0.1") != std::string::npos);

        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        const auto remote = server.sessions();
        QVERIFY(!remote.empty());
        const auto& recorded = remote.back();
        QCOMPARE(recorded.label, std::string("rack"));
        QVERIFY2(recorded.endNs.has_value(), "the server's session was not closed");
        QVERIFY(mirror.notes.find("session " + std::to_string(recorded.id)) != std::string::npos);

        std::map<std::string, std::int64_t> serverMetrics;
        for (const auto& m : server.metrics(recorded.id))
            serverMetrics[m.descriptor.path] = m.id;
        const auto mirrored = local.metrics(mirror.id);
        QVERIFY(!mirrored.empty());
        std::size_t compared = 0;
        for (const auto& m : mirrored) {
            QVERIFY2(serverMetrics.count(m.descriptor.path), m.descriptor.path.c_str());
            const auto mine = local.readRaw(m.id, 0, INT64_MAX);
            std::map<std::int64_t, double> theirs;
            for (const auto& s : server.readRaw(serverMetrics[m.descriptor.path], 0, INT64_MAX))
                theirs[s.tNs] = s.value;
            for (const auto& s : mine) {
                QVERIFY2(theirs.count(s.tNs), m.descriptor.path.c_str());
                QCOMPARE(s.value, theirs[s.tNs]);
                ++compared;
            }
        }
        QVERIFY2(compared >= 2 * mirrored.size(), "fewer than two samples per series mirrored");
        const auto devices = local.devices(mirror.id);
        QCOMPARE(devices.size(), server.devices(recorded.id).size());
    }

    // The server's own disk traffic arrives: 48 MiB written with O_DIRECT on this disk while
    // the server records are in block/total of the server's session and of its mirror here.
    void streamsTheServersKnownDiskTraffic() {
        const QString db = m_local.filePath("io.db");
        QProcess record;
        record.setProcessEnvironment(m_server.environment());
        record.start(TIERSCOPE_BINARY,
                     {"--db", db, "record", "--target", m_server.target(), "--duration", "300s",
                      "--interval", "200ms", "--label", "rack-io"});
        QVERIFY(record.waitForStarted());
        std::int64_t remote = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                if (!QFile::exists(m_server.serverDb()))
                    return false;
                Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
                for (const auto& s : server.sessions())
                    if (s.label == "rack-io" && !s.endNs)
                        remote = s.id;
                return remote > 0;
            }(),
            60000);
        // The newest block/total write sample of a session, 0 before its first.
        auto newestWrite = [](const QString& path, std::optional<std::int64_t> session) {
            if (!QFile::exists(path))
                return std::int64_t(0);
            try {
                Store store(path.toStdString(), Store::Mode::ReadOnly);
                const auto sessions = store.sessions();
                if (sessions.empty())
                    return std::int64_t(0);
                for (const auto& m : store.metrics(session.value_or(sessions.front().id)))
                    if (m.descriptor.path == "block/total/write_bytes_per_s") {
                        const auto samples = store.readRaw(m.id, 0, INT64_MAX);
                        return samples.size() >= 2 ? samples.back().tNs : std::int64_t(0);
                    }
            } catch (const std::exception&) { // created, not yet a workspace
            }
            return std::int64_t(0);
        };
        // Two samples first (a rate needs a baseline), so the writes fall inside sampled
        // intervals, however long a busy machine took to start.
        QTRY_VERIFY_WITH_TIMEOUT(newestWrite(m_server.serverDb(), remote) > 0, 60000);
        const std::int64_t bytes = 48ll << 20;
        QVERIFY2(test::writeDirect(m_work.filePath("known.bin"), bytes),
                 "cannot write with O_DIRECT under the build tree");
        // Stopped once both sides hold a sample taken after the writes.
        const std::int64_t wroteAt = WallClock::systemNowNs();
        QTRY_VERIFY_WITH_TIMEOUT(newestWrite(m_server.serverDb(), remote) > wroteAt, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(newestWrite(db, std::nullopt) > wroteAt, 60000);
        ::kill(static_cast<pid_t>(record.processId()), SIGINT);
        QVERIFY(record.waitForFinished(60000));
        QVERIFY2(record.exitCode() == 0, record.readAllStandardError().constData());

        // Bytes = each rate times the interval it covers (the first sample covers none here).
        auto written = [](Store& store, std::int64_t session) {
            double total = 0;
            for (const auto& m : store.metrics(session)) {
                if (m.descriptor.path != "block/total/write_bytes_per_s")
                    continue;
                const auto samples = store.readRaw(m.id, 0, INT64_MAX);
                for (std::size_t i = 1; i < samples.size(); ++i)
                    total += samples[i].value *
                             static_cast<double>(samples[i].tNs - samples[i - 1].tNs) / 1e9;
            }
            return total;
        };
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        const double onServer = written(server, remote);
        QVERIFY2(onServer >= 0.9 * static_cast<double>(bytes),
                 qPrintable(QString("server session: %1 of %2 bytes").arg(onServer).arg(bytes)));
        Store local(db.toStdString(), Store::Mode::ReadOnly);
        const auto sessions = local.sessions();
        QCOMPARE(sessions.size(), std::size_t(1));
        const double mirrored = written(local, sessions.front().id);
        QVERIFY2(mirrored >= 0.9 * static_cast<double>(bytes),
                 qPrintable(QString("mirror: %1 of %2 bytes").arg(mirrored).arg(bytes)));
        qInfo("48 MiB written; block/total writes recorded: %.1f MiB on the server, %.1f MiB "
              "mirrored (other processes' writes count too)",
              onServer / 1048576, mirrored / 1048576);
    }

    // Killing the ssh connection under a stream: the workstation says it is lost, in one
    // line; the server ends its recording cleanly with what it has.
    void droppedConnectionMidStream() {
        m_server.useInThisProcess();
        SshSession session(*SshTarget::parse(m_server.target().toStdString()).target);
        QVERIFY(!session.connect());
        RemoteMirror::Options o;
        o.dbPath = m_local.filePath("drop.db").toStdString();
        o.interval = "200ms";
        std::atomic<bool> started{false};
        std::int64_t remoteSession = 0;
        o.started = [&](std::int64_t, const std::string&, std::int64_t remote,
                        const std::vector<DeviceRecord>&) {
            remoteSession = remote;
            started = true;
        };
        std::atomic<bool> stop{false};
        RemoteMirror::Result result;
        std::thread watcher([&] { result = RemoteMirror::run(session, o, stop); });
        QTRY_VERIFY_WITH_TIMEOUT(started.load(), 60000);
        session.disconnect(); // the network goes away
        watcher.join();
        QVERIFY(!result.ok);
        QCOMPARE(result.kind, SshDiagnosis::Kind::Lost);
        QVERIFY2(result.error.find("was lost") != std::string::npos, result.error.c_str());
        QVERIFY(result.error.find('\n') == std::string::npos);
        QVERIFY(result.localSession > 0);
        // The server saw its input end and closed its session.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
                const auto s = server.session(remoteSession);
                return s && s->endNs.has_value();
            }(),
            30000);
        // Reconnecting works: a new master, a new stream.
        QVERIFY(!session.connect());
        o.duration = "1s";
        const auto again = RemoteMirror::run(session, o, stop);
        QVERIFY2(again.ok, again.error.c_str());
        QVERIFY(again.sampleRows > 0);
    }

    // "Connect to server..." and `gui --target`: the live view fed from the server, labelled
    // with its host name; a server that cannot be reached is a message in place.
    void guiWatchesAServer() {
        m_server.useInThisProcess();
        MainWindow::Options o;
        o.db = m_local.filePath("gui.db");
        o.record = false;
        o.target = m_server.target();
        auto window = std::make_unique<MainWindow>(o);
        QSignalSpy connected(window.get(), &MainWindow::serverConnected);
        QVERIFY(connected.wait(60000));
        QCOMPARE(connected.first().at(1).toString(), hostName());
        QVERIFY(window->windowTitle().contains(hostName()));
        QVERIFY(window->statusBar()->currentMessage().contains("over SSH"));
        const qint64 mirror = connected.first().at(0).toLongLong();
        window.reset(); // closing the window ends the stream; the mirror is kept
        Store local(o.db.toStdString(), Store::Mode::ReadOnly);
        const auto s = local.session(mirror);
        QVERIFY(s.has_value());
        QCOMPARE(QString::fromStdString(s->host), hostName());
        QVERIFY(s->endNs.has_value());

        o.target = QString("ssh://root@127.0.0.1:%1").arg(test::freePort());
        MainWindow refused(o);
        QTRY_VERIFY_WITH_TIMEOUT(
            refused.statusBar()->currentMessage().contains("cannot reach 127.0.0.1"), 60000);
    }

    void runsAPlanOnTheServer() {
        const QString plan = writePlan("remote", 1, 0);
        const auto r = tierscope(
            {"--db", m_local.filePath("run.db"), "run", plan, "--target", m_server.target()},
            m_server.environment(), 240000);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.err.contains("[1/2] a"), r.err.constData()); // progress, streamed back
        QVERIFY(r.err.contains("[2/2] b"));
        QVERIFY2(r.out.contains("model_load_time"), r.out.constData()); // the report
        QVERIFY(!QFile::exists(m_local.filePath("run.db")));            // nothing ran here
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        const auto runs = server.runsOfArm("remote/model-load", "a");
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("completed"));
        // The job's files hold the plan and its [arm.env]: the owner's alone.
        const QString jobs = m_server.path("server/tierscope/jobs");
        int seen = 0;
        QDirIterator it(jobs, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden,
                        QDirIterator::Subdirectories);
        for (QString path = jobs; !path.isEmpty(); path = it.hasNext() ? it.next() : QString()) {
            struct stat st {};
            QVERIFY(lstat(path.toUtf8().constData(), &st) == 0);
            QVERIFY2((st.st_mode & 077) == 0,
                     qPrintable(path + QString(" is %1").arg(st.st_mode & 0777, 0, 8)));
            seen += S_ISREG(st.st_mode) && path.endsWith("/plan.toml");
        }
        QCOMPARE(seen, 1);
    }

    void storageRunOnTheServer() {
        const QString dir = m_work.filePath("ckpt");
        QDir().mkpath(dir);
        const auto r = tierscope({"--db", m_local.filePath("storage.db"), "storage", "run",
                                  "checkpoint-save", "--path", dir, "--size", "4MiB", "--files",
                                  "1", "--label", "remote-ckpt", "--target", m_server.target()},
                                 m_server.environment(), 240000);
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY(!QFile::exists(m_local.filePath("storage.db")));
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        bool found = false;
        for (const auto& s : server.sessions())
            found = found || s.label == "remote-ckpt";
        QVERIFY(found);
    }

    // The GUI's Run plan with a target: the plan runs on the server through `run --target`,
    // its progress fills the dialog's table, and the status names the server's session to pull.
    void guiRunsAPlanOnTheServer() {
        const auto owned = remoteDialog("gui", 1, 0);
        ExperimentDialog& dialog = *owned;
        QVERIFY(dialog.commandsText().contains("sleep 0"));
        dialog.start();
        QVERIFY(dialog.running());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 240000);
        const QString log = dialog.remoteLog()->toPlainText();
        QVERIFY2(!dialog.remoteJob().isEmpty(), qPrintable(log));
        for (int row = 0; row < 2; ++row)
            QVERIFY2(dialog.runTable()->item(row, 4)->text() == "completed", qPrintable(log));
        QCOMPARE(dialog.progress()->value(), 2);
        QVERIFY2(log.contains("model_load_time"), qPrintable(log)); // the report
        QVERIFY2(dialog.serverSession() > 0, qPrintable(log));
        QVERIFY2(dialog.statusText().contains(QString("tierscope pull %1 --session %2")
                                                  .arg(m_server.target())
                                                  .arg(dialog.serverSession())),
                 qPrintable(dialog.statusText()));
        QVERIFY(!QFile::exists(m_local.filePath("gui-dialog.db"))); // nothing ran here
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        const auto runs = server.runsOfArm("gui/model-load", "b");
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("completed"));
        QCOMPARE(runs[0].sessionId, dialog.serverSession());
    }

    // Cancel in the dialog stops the job on the server (its process group there, cleanly):
    // the experiment ends incomplete with what ran kept, and the dialog says so.
    void guiCancelStopsTheRunOnTheServer() {
        const auto owned = remoteDialog("guicancel", 3, 2);
        ExperimentDialog& dialog = *owned;
        dialog.start();
        QTRY_VERIFY2_WITH_TIMEOUT(underWay(dialog), qPrintable(shown(dialog)), 120000);
        const QString job = dialog.remoteJob();
        QVERIFY(!job.isEmpty());
        dialog.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 120000);
        const QString log = dialog.remoteLog()->toPlainText();
        QVERIFY2(log.contains("stopping job " + job), qPrintable(log));
        // The job's end within run --target's 2 s, or, on a busy machine, the dialog leaves it
        // stopping there and says how to see its end, as the command line does.
        QVERIFY2(log.contains("INCOMPLETE") ||
                     (log.contains("is stopping") && log.contains("--attach " + job)),
                 qPrintable(log));
        QVERIFY(jobEnded(job));
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        QVERIFY(server.runsOfArm("guicancel/model-load", "a").size() +
                    server.runsOfArm("guicancel/model-load", "b").size() <
                6);
    }

    // The connection drops mid-run: the dialog says so and offers Reattach; the job went on,
    // and reattaching fills the table to the end.
    void guiReattachesAfterADroppedConnection() {
        const auto owned = remoteDialog("guidrop", 1, 2);
        ExperimentDialog& dialog = *owned;
        dialog.start();
        QTRY_VERIFY2_WITH_TIMEOUT(underWay(dialog), qPrintable(shown(dialog)), 120000);
        const QString job = dialog.remoteJob();
        QVERIFY(!job.isEmpty());
        QCOMPARE(dropConnection(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 120000);
        QVERIFY2(dialog.statusText().contains("was lost; job " + job + " goes on there"),
                 qPrintable(dialog.statusText()));
        dialog.show();
        bool offered = false;
        for (auto* b : dialog.findChildren<QPushButton*>())
            offered = offered || (b->text() == "Reattach" && b->isVisible());
        QVERIFY(offered);
        dialog.reattach();
        QVERIFY(dialog.running());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.running(), 120000);
        const QString log = dialog.remoteLog()->toPlainText();
        for (int row = 0; row < 2; ++row)
            QVERIFY2(dialog.runTable()->item(row, 4)->text() == "completed", qPrintable(log));
        QCOMPARE(dialog.remoteJob(), job);
        QVERIFY2(dialog.serverSession() > 0, qPrintable(log));
    }

    // A hostile target never reaches ssh: the dialog says what is wrong and runs nothing.
    void guiRefusesAHostileTarget() {
        const auto owned = remoteDialog("guihostile", 1, 0);
        ExperimentDialog& dialog = *owned;
        dialog.setTarget("ssh://-oProxyCommand=touch " + m_local.filePath("pwned"));
        dialog.start();
        QVERIFY(!dialog.running());
        QVERIFY2(dialog.statusText().startsWith("Run on: "), qPrintable(dialog.statusText()));
        QTest::qWait(200);
        QVERIFY(!QFile::exists(m_local.filePath("pwned")));
    }

    // Ctrl-C on the workstation stops the job's process group on the server, cleanly: the
    // experiment ends incomplete, with what ran kept.
    void ctrlCStopsTheRemoteRun() {
        const QString plan = writePlan("cancelled", 3, 2);
        QProcess p;
        p.setProcessEnvironment(m_server.environment());
        p.start(TIERSCOPE_BINARY, {"--db", m_local.filePath("cancel.db"), "run", plan, "--target",
                                   m_server.target()});
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("[1/6]"), 120000);
        const QString job = jobId(err);
        QVERIFY(!job.isEmpty());
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(120000));
        err += p.readAllStandardError();
        QVERIFY2(err.contains("stopping job"), err.constData());
        // The job's end within 2 s (the experiment is incomplete, exit 1), or the command
        // leaves it stopping there and says how to see its end.
        QVERIFY2((p.exitCode() == 1 && err.contains("INCOMPLETE")) ||
                     (p.exitCode() == 128 + SIGINT && err.contains("is stopping") &&
                      err.contains("--attach " + job.toUtf8())),
                 err.constData());
        QVERIFY(jobEnded(job));
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        QVERIFY(server.runsOfArm("cancelled/model-load", "a").size() +
                    server.runsOfArm("cancelled/model-load", "b").size() <
                6);
    }

    // The network goes away mid-run: the workstation says so and how to reattach; the job
    // runs on; reattaching shows its progress from the start to the end.
    void droppedConnectionMidRunAndReattach() {
        // Each setup sleeps 8 s: the job is still running when the client has noticed the
        // drop, however slowly a busy machine lets it notice.
        const QString plan = writePlan("dropped", 1, 8);
        QProcess p;
        p.setProcessEnvironment(m_server.environment());
        p.start(TIERSCOPE_BINARY, {"--db", m_local.filePath("drop-run.db"), "run", plan, "--target",
                                   m_server.target()});
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("[1/2]"), 120000);
        const QString job = jobId(err);
        QVERIFY(!job.isEmpty());
        QCOMPARE(dropConnection(), 1);
        QVERIFY(p.waitForFinished(120000));
        err += p.readAllStandardError();
        QCOMPARE(p.exitCode(), 14);
        QVERIFY2(err.contains("was lost; job " + job.toUtf8() + " goes on there"), err.constData());
        QVERIFY(err.contains("--attach " + job.toUtf8()));
        QVERIFY(!jobEnded(job, 0)); // still running

        const auto again = tierscope({"--db", m_local.filePath("drop-run.db"), "run", "--target",
                                      m_server.target(), "--attach", job},
                                     m_server.environment(), 240000);
        QVERIFY2(again.code == 0, again.err.constData());
        QVERIFY(again.err.contains("[1/2] a")); // from the start
        QVERIFY(again.err.contains("[2/2] b"));
        QVERIFY(again.out.contains("model_load_time"));
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(server.runsOfArm("dropped/model-load", "b").size(), std::size_t(1));
    }

    // Pulling brings the server's sessions home with new ids and their origin; twice adds
    // nothing.
    void pullTwiceDoesNotDuplicate() {
        const QString db = m_local.filePath("pulled.db");
        Store server(m_server.serverDb().toStdString(), Store::Mode::ReadOnly);
        const auto remote = server.sessions();
        QVERIFY(remote.size() >= 3);
        const auto first =
            tierscope({"--db", db, "pull", m_server.target()}, m_server.environment());
        QVERIFY2(first.code == 0, first.err.constData());
        QVERIFY2(first.out.contains(QString("pulled %1 sessions").arg(remote.size()).toUtf8()),
                 first.out.constData());
        const auto second =
            tierscope({"--db", db, "pull", m_server.target()}, m_server.environment());
        QVERIFY2(second.code == 0, second.err.constData());
        QVERIFY2(second.out.contains(QString("pulled 0 sessions").toUtf8()),
                 second.out.constData());
        QVERIFY(second.out.contains(QString("%1 already here").arg(remote.size()).toUtf8()));

        Store local(db.toStdString(), Store::Mode::ReadOnly);
        const auto pulled = local.sessions();
        QCOMPARE(pulled.size(), remote.size());
        for (std::size_t i = 0; i < remote.size(); ++i) {
            QCOMPARE(pulled[i].label, remote[i].label);
            QCOMPARE(pulled[i].startNs, remote[i].startNs);
            QVERIFY(pulled[i].tags.find("pulled") != std::string::npos);
            QCOMPARE(local.sampleCount(pulled[i].id), server.sampleCount(remote[i].id));
            QCOMPARE(local.devices(pulled[i].id).size(), server.devices(remote[i].id).size());
            QCOMPARE(local.metrics(pulled[i].id).size(), server.metrics(remote[i].id).size());
            const auto theirs = server.runsOfSession(remote[i].id);
            const auto mine = local.runsOfSession(pulled[i].id);
            QCOMPARE(mine.size(), theirs.size());
            for (std::size_t k = 0; k < mine.size(); ++k) {
                QCOMPARE(mine[k].experiment, theirs[k].experiment);
                QCOMPARE(mine[k].summaryJson, theirs[k].summaryJson);
                QCOMPARE(local.requestCount(mine[k].id), server.requestCount(theirs[k].id));
            }
            QVERIFY(local.eventText(pulled[i].id, "pulled-from")->find(hostName().toStdString()) ==
                    0);
        }
        // A selection: one experiment's sessions only, into another workspace.
        const QString one = m_local.filePath("one.db");
        const auto selected =
            tierscope({"--db", one, "pull", m_server.target(), "--experiment", "remote/model-load"},
                      m_server.environment());
        QVERIFY2(selected.code == 0, selected.err.constData());
        Store picked(one.toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(picked.sessions().size(), std::size_t(1));
        QCOMPARE(picked.arms().size(), std::size_t(2));
        // The plan's own name, as the user wrote it, selects the same session (it pulled 0).
        const QString byName = m_local.filePath("byname.db");
        const auto named =
            tierscope({"--db", byName, "pull", m_server.target(), "--experiment", "remote"},
                      m_server.environment());
        QVERIFY2(named.code == 0 && named.out.contains("pulled 1 session"),
                 (named.out + named.err).constData());
    }
};

QTEST_MAIN(TestSsh)
#include "tst_ssh.moc"
