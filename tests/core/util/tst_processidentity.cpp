#include "core/util/ProcessIdentity.h"

#include <QTest>
#include <sys/wait.h>
#include <unistd.h>

using namespace tierscope;

class TestProcessIdentity : public QObject {
    Q_OBJECT
  private slots:
    void parsesStartTimeAfterTheCommand() {
        // /proc/<pid>/stat of `cat` on Linux 6.x (captured with cat /proc/self/stat).
        const char* cat = "3884 (cat) R 3882 3882 16690 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 "
                          "1273184 3133440 378 18446744073709551615 94262537879552 0";
        QCOMPARE(ProcessIdentity::parseStartTicks(cat), std::optional<std::int64_t>(1273184));
        // A command name may hold spaces and parentheses (prctl PR_SET_NAME).
        const char* odd = "77 (a) b (c) S 1 77 77 0 -1 4194560 5 0 0 0 0 0 0 0 20 0 1 0 4242 0";
        QCOMPARE(ProcessIdentity::parseStartTicks(odd), std::optional<std::int64_t>(4242));
        QVERIFY(!ProcessIdentity::parseStartTicks("77 (x) S 1 2 3"));
        QVERIFY(!ProcessIdentity::parseStartTicks("no parenthesis"));
        QVERIFY(!ProcessIdentity::parseStartTicks("1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 "
                                                  "12x 0"));
    }

    void thisProcessIsAlive() {
        const auto self = ProcessIdentity::self();
        QVERIFY(self.startTicks > 0);
        QVERIFY(!self.bootId.empty());
        QVERIFY(!self.provablyGone(self));
    }

    void anExitedProcessIsGone() {
        const pid_t child = ::fork();
        if (child == 0)
            ::_exit(0);
        // Its identity while it exists (a zombie until reaped still has its start time).
        ProcessIdentity dead = ProcessIdentity::self();
        dead.pid = child;
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        const auto here = ProcessIdentity::self();
        QVERIFY(dead.provablyGone(here)); // pid free: gone

        // A reused pid (same pid, later start) is another process.
        ProcessIdentity reused = here;
        reused.startTicks = here.startTicks - 1;
        QVERIFY(reused.provablyGone(here));
        // Another boot: gone whatever the pid.
        ProcessIdentity rebooted = here;
        rebooted.bootId = "00000000-0000-0000-0000-000000000000";
        QVERIFY(rebooted.provablyGone(here));
        // Another pid namespace (another container): cannot be checked, so never gone.
        ProcessIdentity elsewhere = dead;
        elsewhere.pidNamespace = "pid:[1]";
        QVERIFY(!elsewhere.provablyGone(here));
    }
};

QTEST_GUILESS_MAIN(TestProcessIdentity)
#include "tst_processidentity.moc"
