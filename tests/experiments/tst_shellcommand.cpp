#include "experiments/ShellCommand.h"
#include "core/util/Utf8.h"

#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <future>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace tierscope;

namespace {

// Processes of the group that are still running (zombies waiting for a reaper do not count).
int liveInGroup(pid_t group) {
    int live = 0;
    DIR* proc = opendir("/proc");
    while (dirent* e = proc ? readdir(proc) : nullptr) {
        std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
        std::string stat;
        if (!std::getline(in, stat) || stat.rfind(')') == std::string::npos)
            continue;
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string state;
        long ppid = 0, pgrp = 0;
        fields >> state >> ppid >> pgrp;
        live += pgrp == group && state != "Z" ? 1 : 0;
    }
    if (proc)
        closedir(proc);
    return live;
}

// Polls for up to 20 s, so a busy machine cannot fail it; a fixed process group leaves at once.
// Orphans come to this process (a subreaper), which reaps them so that no zombie stays.
bool groupEnds(pid_t group) {
    for (int i = 0; i < 400 && liveInGroup(group) > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const bool ended = liveInGroup(group) == 0;
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    return ended;
}

pid_t readNumber(const QString& path) {
    for (int i = 0; i < 400; ++i) {
        std::ifstream in(path.toStdString());
        long n = 0;
        if (in >> n && n > 0)
            return static_cast<pid_t>(n);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return 0;
}

// The command line that writes the shell's process group id to FILE.
std::string groupTo(const QString& file) {
    return "cut -d' ' -f5 /proc/$$/stat > " + file.toStdString() + ".tmp && mv " +
           file.toStdString() + ".tmp " + file.toStdString();
}

} // namespace

class TestShellCommand : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { QCOMPARE(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }

    // It used to wait in a blocking waitpid once the output was closed: 606 s observed.
    void aCommandThatDetachesItsOutputIsStoppedAtTheDeadline() {
        QTemporaryDir tmp;
        const QString file = tmp.filePath("group");
        const std::string text = groupTo(file) + "; exec >/dev/null 2>&1; sleep 1000 & sleep 1000";
        auto done = std::async(std::launch::async, [&] {
            // Long enough for a busy machine's shell to write its group first; the 30 s wait
            // below still tells an enforced deadline from a hang.
            return ShellCommand::run(text, {}, std::chrono::milliseconds(5000));
        });
        const pid_t group = readNumber(file);
        QVERIFY(group > 0);
        const bool returned = done.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
        if (!returned)
            kill(-group, SIGKILL); // unblock it, so that the failure is reported and not a hang
        const auto r = done.get();
        QVERIFY2(returned, "the deadline was not enforced");
        QVERIFY(r.timedOut);
        QVERIFY(!r.ok());
        QVERIFY2(groupEnds(group), "the command's process group outlived the timeout");
    }

    // tierscope SIGKILLed during a setup: the setup's tree (a shell, a background and a
    // foreground child) used to run on under init.
    void theCommandsProcessesDieWithTierscope() {
        QTemporaryDir tmp;
        const QString file = tmp.filePath("group");
        const std::string text = "sleep 300 & " + groupTo(file) + "; sleep 300";
        const pid_t tierscope = fork();
        if (tierscope == 0) {
            ShellCommand::run(text, {}, std::chrono::seconds(120));
            _exit(0);
        }
        QVERIFY(tierscope > 0);
        const pid_t group = readNumber(file);
        kill(tierscope, SIGKILL);
        waitpid(tierscope, nullptr, 0);
        QVERIFY(group > 0);
        const bool ended = groupEnds(group);
        if (!ended)
            kill(-group, SIGKILL); // leave nothing behind
        QVERIFY2(ended, "the setup's processes outlived tierscope");
    }

    void aNormalEndLeavesNoGuardBehind() {
        const auto r = ShellCommand::run("echo $$", {}, std::chrono::seconds(10));
        QVERIFY(r.ok());
        int status = 0;
        QCOMPARE(waitpid(-1, &status, WNOHANG), -1); // every child of ours was reaped
        QCOMPARE(errno, ECHILD);
    }

    void outputThatIsNotUtf8IsKeptLossily() {
        auto r =
            ShellCommand::run("printf 'ok\\377\\376 cut \\342\\202'", {}, std::chrono::seconds(10));
        QVERIFY(r.ok());
        QVERIFY(Utf8::valid(r.output));
        QCOMPARE(r.output, std::string("ok\xEF\xBF\xBD\xEF\xBF\xBD cut \xEF\xBF\xBD"));
        // 70,001 bytes of "é\n": the 64 KiB tail starts inside a character.
        r = ShellCommand::run("yes é | head -c 70001", {}, std::chrono::seconds(10));
        QVERIFY(r.ok());
        QVERIFY(Utf8::valid(r.output));
        QVERIFY(r.output.size() <= 65536);
        QCOMPARE(r.output.substr(0, 3), std::string("\n\xC3\xA9"));
    }
};

QTEST_GUILESS_MAIN(TestShellCommand)
#include "tst_shellcommand.moc"
