#include "TestSupport.h"
#include "core/store/Store.h"
#include "experiments/LeftoverProcesses.h"

#include <QProcess>
#include <QTemporaryDir>
#include <cerrno>
#include <csignal>

using namespace tierscope;

// A setup command whose child left its process group (setsid) outlives the guard that kills the
// group when tierscope is SIGKILLed. The next `run` must name it, and only it.
class TestLeftoverProcesses : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir{QDir::currentPath() + "/leftover-XXXXXX"};
    pid_t m_leftover = 0;

    // The fields after "(comm)" of /proc/PID/stat: the session is the fourth of them.
    static bool leftItsSession(pid_t pid) {
        QFile stat(QString("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            return false;
        const QByteArray text = stat.readAll();
        const auto close = text.lastIndexOf(')');
        const auto open = text.indexOf('(');
        if (close < 0 || open < 0)
            return false;
        const auto fields = text.mid(close + 2).split(' ');
        return text.mid(open + 1, close - open - 1) == "sleep" && fields.size() > 3 &&
               fields[3].toInt() == pid;
    }

    QString writePlan(const QString& name, const QString& setupA) {
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, QString(R"(name = "%1"
repetitions = 1
warmup = 0

[[arm]]
label = "a"
path = "%2/%1-a"
setup = "%3"

[[arm]]
label = "b"
path = "%2/%1-b"
setup = "mkdir -p {path}"

[[workload]]
kind = "model-load"
size = "1MiB"
files = 1
)")
                                  .arg(name, m_dir.path(), setupA)
                                  .toUtf8());
        return path;
    }

    static ProcessIdentity gone(ProcessIdentity id) {
        id.startTicks += 1; // the same pid, started at another time: not this process
        return id;
    }

    static QString owner(const ProcessIdentity& id) {
        return QString("%1/%2/%3/%4")
            .arg(id.pid)
            .arg(id.startTicks)
            .arg(QString::fromStdString(id.bootId), QString::fromStdString(id.pidNamespace));
    }

    void fakeProcess(const QString& proc, int pid, const QByteArray& environ,
                     const QByteArray& cmdline) {
        const QString dir = QString("%1/%2").arg(proc).arg(pid);
        QVERIFY(QDir().mkpath(dir));
        test::writeFile(dir + "/environ", environ);
        test::writeFile(dir + "/cmdline", cmdline);
    }

  private slots:
    void ownerRoundTrips() {
        const ProcessIdentity self = ProcessIdentity::self();
        const auto parsed = LeftoverProcesses::parseOwner(LeftoverProcesses::ownerValue());
        QVERIFY(parsed);
        QCOMPARE(parsed->pid, self.pid);
        QCOMPARE(parsed->startTicks, self.startTicks);
        QCOMPARE(parsed->bootId, self.bootId);
        QCOMPARE(parsed->pidNamespace, self.pidNamespace);
        QVERIFY(!parsed->provablyGone(self));
    }

    void malformedOwnersAreNotOwners() {
        for (const char* text : {"", "12", "12/34", "12/34/boot", "x/34/boot/ns", "12/-3/boot/ns",
                                 "12/34//ns", "12/34/boot/", "0/34/boot/ns"})
            QVERIFY2(!LeftoverProcesses::parseOwner(text), text);
    }

    void theVariableIsFoundWhereverItIs() {
        using namespace std::string_literals;
        QCOMPARE(*LeftoverProcesses::ownerIn("TIERSCOPE_OWNER=1/2/b/n\0PATH=/bin\0"s),
                 std::string("1/2/b/n"));
        QCOMPARE(*LeftoverProcesses::ownerIn("A=1\0TIERSCOPE_OWNER=1/2/b/n"s),
                 std::string("1/2/b/n"));
        QVERIFY(!LeftoverProcesses::ownerIn("TIERSCOPE_OWNERX=1/2/b/n\0A=TIERSCOPE_OWNER=1"s));
        QVERIFY(!LeftoverProcesses::ownerIn(""));
    }

    // A fake /proc: one process whose owner is gone, one whose owner (this test) runs, one
    // without the variable, one with a malformed value, and entries that are not processes.
    void onlyProcessesOfAGoneOwnerAreListed() {
        const QString proc = m_dir.filePath("proc");
        const ProcessIdentity self = ProcessIdentity::self();
        using namespace std::string_literals;
        fakeProcess(proc, 4001,
                    QByteArray::fromStdString("PATH=/bin\0TIERSCOPE_OWNER="s +
                                              owner(gone(self)).toStdString() + "\0"s),
                    {});
        {
            // QByteArray from a std::string keeps the NULs that c_str() would cut.
            const std::string env = "TIERSCOPE_OWNER="s + owner(gone(self)).toStdString() + "\0"s;
            const std::string cmd = "sleep\0"s + "300\0"s;
            fakeProcess(proc, 4002, QByteArray::fromStdString(env), QByteArray::fromStdString(cmd));
        }
        fakeProcess(proc, 4003,
                    QByteArray::fromStdString("TIERSCOPE_OWNER="s + owner(self).toStdString()),
                    "vllm");
        fakeProcess(proc, 4004, "PATH=/bin", "bash");
        fakeProcess(proc, 4005, "TIERSCOPE_OWNER=garbage", "x");
        QVERIFY(QDir().mkpath(proc + "/self"));
        QVERIFY(QDir().mkpath(proc + "/sys"));
        const auto found = LeftoverProcesses::find(self, proc.toStdString());
        QCOMPARE(found.size(), std::size_t(2));
        QCOMPARE(found[0].pid, 4001);
        QCOMPARE(found[0].command, std::string());
        QCOMPARE(found[1].pid, 4002);
        QCOMPARE(found[1].command, std::string("sleep 300"));
        QCOMPARE(found[1].owner.pid, self.pid);
        const std::string text = LeftoverProcesses::describe(found);
        QVERIFY2(text.find("pid 4002 (sleep 300), started by tierscope pid " +
                           std::to_string(self.pid) + ", which is gone\n") != std::string::npos,
                 text.c_str());
        QVERIFY(text.find("pid 4001 (no command line)") != std::string::npos);
    }

    // The real thing: tierscope SIGKILLed during a setup whose child detached with setsid.
    void aKilledRunsDetachedChildIsReportedByTheNextRun() {
        const QString db = m_dir.filePath("ws.db");
        const QString pidFile = m_dir.filePath("leftover.pid");
        const QString groupFile = m_dir.filePath("setup.group");
        QProcess first;
        first.setProcessChannelMode(QProcess::MergedChannels);
        first.start(
            TIERSCOPE_BINARY,
            {"--db", db, "run",
             writePlan("killed", QString("mkdir -p {path}; cut -d' ' -f5 /proc/$$/stat > %2; "
                                         "setsid sleep 300 </dev/null >/dev/null 2>&1 & "
                                         "echo $! > %1; sleep 60")
                                     .arg(pidFile, groupFile))});
        QVERIFY(first.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile(pidFile).size() > 0, 60000);
        QFile f(pidFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_leftover = static_cast<pid_t>(f.readAll().trimmed().toInt());
        QVERIFY(m_leftover > 0);
        // `$!` is known at fork, before the child has called setsid: killing tierscope then
        // would let the guard take the child with the group, as a busy CI machine once showed.
        QTRY_VERIFY_WITH_TIMEOUT(leftItsSession(m_leftover), 30000);
        QFile g(groupFile);
        QVERIFY(g.open(QIODevice::ReadOnly));
        const auto group = static_cast<pid_t>(g.readAll().trimmed().toInt());
        QVERIFY(group > 0);
        const auto killedPid = first.processId();
        ::kill(static_cast<pid_t>(killedPid), SIGKILL);
        QVERIFY(first.waitForFinished(10000));
        // The guard sees the end of its lifeline and kills the setup's group: its shell and
        // `sleep 60`, however late a busy machine lets it run.
        QTRY_VERIFY_WITH_TIMEOUT(::kill(-group, 0) != 0 && errno == ESRCH, 30000);
        QCOMPARE(::kill(m_leftover, 0), 0); // out of the group: still running

        QProcess second;
        second.start(TIERSCOPE_BINARY, {"--db", db, "run", writePlan("next", "mkdir -p {path}")});
        QVERIFY(second.waitForFinished(120000));
        const QString err = QString::fromUtf8(second.readAllStandardError());
        QVERIFY2(err.contains(QString("pid %1 (sleep 300), started by tierscope pid %2, which is "
                                      "gone")
                                  .arg(m_leftover)
                                  .arg(killedPid)),
                 qPrintable(err));
        QVERIFY2(err.contains(QString("`kill %1`").arg(m_leftover)), qPrintable(err));
        // Nothing else: the guard took the setup's shell and its `sleep 60`.
        QCOMPARE(err.count("started by tierscope pid"), 1);
        QCOMPARE(::kill(m_leftover, 0), 0); // reported, not killed

        Store store(db.toStdString(), Store::Mode::ReadOnly);
        bool stored = false;
        for (const auto& s : store.sessions()) {
            const auto text = store.eventText(s.id, "leftover-processes");
            stored = stored || (text && text->find("sleep 300") != std::string::npos);
        }
        QVERIFY(stored);
    }

    void cleanup() {
        if (m_leftover > 0)
            ::kill(m_leftover, SIGKILL);
        m_leftover = 0;
    }
};

QTEST_GUILESS_MAIN(TestLeftoverProcesses)
#include "tst_leftoverprocesses.moc"
