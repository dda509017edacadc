#include "TestSupport.h"
#include "collectors/host/ProcessIo.h"

#include <QTemporaryDir>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tierscope;

namespace {

const QString kFixtures = QStringLiteral("proc-io/");

// A /proc/<pid>/stat line as the kernel prints it, for a fake proc tree.
QByteArray statLine(int pid, const char* comm, int ppid, int pgid, std::uint64_t start) {
    return QByteArray::number(pid) + " (" + comm + ") S " + QByteArray::number(ppid) + " " +
           QByteArray::number(pgid) + " " + QByteArray::number(pgid) +
           " 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 " + QByteArray::number(start) +
           " 3133440 394 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
}

// A /proc/<pid>/io file in the kernel's layout (fs/proc/base.c, do_io_accounting).
QByteArray ioText(std::uint64_t readBytes, std::uint64_t writeBytes) {
    return "rchar: " + QByteArray::number(readBytes + 7) +
           "\nwchar: " + QByteArray::number(writeBytes + 3) +
           "\nsyscr: 10\nsyscw: 2\nread_bytes: " + QByteArray::number(readBytes) +
           "\nwrite_bytes: " + QByteArray::number(writeBytes) + "\ncancelled_write_bytes: 0\n";
}

void fakeProcess(const QString& root, int pid, const char* comm, int pgid, std::uint64_t read,
                 std::uint64_t write) {
    const QString dir = root + "/" + QString::number(pid);
    test::writeFile(dir + "/stat", statLine(pid, comm, 1, pgid, 1000 + pid));
    test::writeFile(dir + "/io", ioText(read, write));
}

} // namespace

class TestProcessIo : public QObject {
    Q_OBJECT
  private slots:
    void parsesCapturedIo() {
        // A process that wrote 16 MiB with O_DIRECT, fsynced, dropped the file from the page
        // cache and read it back: both reached the block layer (fixture README).
        const auto io =
            ProcessIo::parseIo(test::fixture(kFixtures + "io-tmux-server-linux-6.18.44.txt"));
        QVERIFY(io);
        QCOMPARE(*io->rchar, std::uint64_t(18132675));
        QCOMPARE(*io->wchar, std::uint64_t(16777222));
        QCOMPARE(*io->readBytes, std::uint64_t(16867328));
        QCOMPARE(*io->writeBytes, std::uint64_t(16793600));
        QVERIFY(*io->writeBytes >= 16u << 20);
        // A zero is a reported zero, not an absent field.
        const auto idle =
            ProcessIo::parseIo(test::fixture(kFixtures + "io-sd-pam-linux-6.18.44.txt"));
        QVERIFY(idle && idle->readBytes && idle->writeBytes && idle->wchar);
        QCOMPARE(*idle->readBytes, std::uint64_t(0));
        QCOMPARE(*idle->writeBytes, std::uint64_t(0));
        QCOMPARE(*idle->rchar, std::uint64_t(1353168));
    }

    void ioKeepsWhatIsThereAndRefusesTheRest() {
        const auto partial = ProcessIo::parseIo("read_bytes: 4096\nwrite_bytes: 0\n");
        QVERIFY(partial && !partial->rchar && !partial->wchar);
        QCOMPARE(*partial->readBytes, std::uint64_t(4096));
        QVERIFY(!ProcessIo::parseIo(""));
        QVERIFY(!ProcessIo::parseIo("syscr: 10\nsyscw: 0\n"));            // none of ours
        QVERIFY(!ProcessIo::parseIo("read_bytes: -1\nwrite_bytes: 0\n")); // not a count
        QVERIFY(!ProcessIo::parseIo("read_bytes: 12 kB\n"));
        QVERIFY(!ProcessIo::parseIo("read_bytes: 1\nread_bytes: 2\n"));     // twice
        QVERIFY(!ProcessIo::parseIo("read_bytes 4096\n"));                  // no colon
        QVERIFY(!ProcessIo::parseIo("read_bytes: 18446744073709551616\n")); // over 64 bits
    }

    void parsesCapturedStatWithAwkwardNames() {
        const auto tmux =
            ProcessIo::parseStat(test::fixture(kFixtures + "stat-tmux-server-linux-6.18.44.txt"));
        QVERIFY(tmux);
        QCOMPARE(tmux->comm, std::string("(tmux: server)"));
        QCOMPARE(tmux->ppid, 1);
        QCOMPARE(tmux->pgid, 20105);
        QCOMPARE(tmux->startTicks, std::uint64_t(7416767));
        const auto pam =
            ProcessIo::parseStat(test::fixture(kFixtures + "stat-sd-pam-linux-6.18.44.txt"));
        QVERIFY(pam);
        QCOMPARE(pam->comm, std::string("(sd-pam)"));
        QCOMPARE(pam->pgid, 20105);
        QCOMPARE(pam->startTicks, std::uint64_t(7416799));
        // ") S 1 (" inside the name: counting fields from the first ')' would read the name's
        // own "1" as the parent and the real state as the group.
        const auto trap =
            ProcessIo::parseStat(test::fixture(kFixtures + "stat-paren-trap-linux-6.18.44.txt"));
        QVERIFY(trap);
        QCOMPARE(trap->comm, std::string("x) S 1 (y"));
        QCOMPARE(trap->ppid, 1);
        QCOMPARE(trap->pgid, 20105);
        QCOMPARE(trap->startTicks, std::uint64_t(7416800));
    }

    void refusesMalformedStat() {
        QVERIFY(!ProcessIo::parseStat(""));
        QVERIFY(
            !ProcessIo::parseStat("12 cat S 1 12 12 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5 6"));
        QVERIFY(!ProcessIo::parseStat("12 (cat S 1 12 12"));
        QVERIFY(!ProcessIo::parseStat("12 (cat) S 1 12 12 0 -1 4194304")); // cut before starttime
        QVERIFY(
            !ProcessIo::parseStat("x (cat) S 1 12 12 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5 6"));
        QVERIFY(!ProcessIo::parseStat(
            "12 (cat) S one 12 12 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5 6"));
        const auto ok =
            ProcessIo::parseStat("12 (cat) S 1 12 12 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5 6\n");
        QVERIFY(ok);
        QCOMPARE(ok->startTicks, std::uint64_t(5));
    }

    void scanReadsOnlyWhatItShould() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString root = tmp.path() + "/proc";
        fakeProcess(root, 100, "kvstore", 100, 4096, 8192);
        fakeProcess(root, 4194304, "tmux: server", 4194304, 1, 2); // the largest pid_max
        // No io file: exited between the two reads, or no task I/O accounting; left out.
        test::writeFile(root + "/200/stat", statLine(200, "gone", 1, 200, 1));
        // A symbolic link where a file is expected is never followed, however good its target.
        test::writeFile(root + "/300/stat", statLine(300, "linked-io", 1, 300, 1));
        QVERIFY(QFile::link(root + "/100/io", root + "/300/io"));
        test::writeFile(root + "/301/io", ioText(5, 5));
        QVERIFY(QFile::link(root + "/100/stat", root + "/301/stat"));
        // Nor a linked process directory (100 again under another number).
        QVERIFY(QFile::link(root + "/100", root + "/302"));
        // Only digits name a process: none of these is opened as one.
        QVERIFY(QFile::link(root + "/100", root + "/self"));
        fakeProcess(root + "/not-a-pid", 0, "x", 0, 0, 0);
        test::writeFile(root + "/12a/stat", statLine(12, "letters", 1, 12, 1));
        test::writeFile(root + "/12a/io", ioText(1, 1));
        test::writeFile(root + "/400", "a file, not a directory");
        // Not the kernel's text: left out rather than read as zeros.
        test::writeFile(root + "/500/stat", "500 (broken)\n");
        test::writeFile(root + "/500/io", ioText(1, 1));
        test::writeFile(root + "/501/stat", statLine(501, "noreadbytes", 1, 501, 1));
        test::writeFile(root + "/501/io", "rchar: 10\nwchar: 10\n");
        // A FIFO where io should be: refused without blocking the scan.
        test::writeFile(root + "/600/stat", statLine(600, "fifo", 1, 600, 1));
        QCOMPARE(::mkfifo(QFile::encodeName(root + "/600/io").constData(), 0600), 0);

        const auto scan = ProcessIo::scanCounted(root.toStdString());
        QCOMPARE(scan.processes.size(), std::size_t(2));
        QCOMPARE(scan.unreadable, 0); // nothing here was refused by permissions
        const auto& p = scan.processes[0];
        QCOMPARE(p.pid, 100);
        QCOMPARE(p.pgid, 100);
        QCOMPARE(p.ppid, 1);
        QCOMPARE(p.name, std::string("kvstore"));
        QCOMPARE(p.startTicks, std::uint64_t(1100));
        QCOMPARE(p.readBytes, std::uint64_t(4096));
        QCOMPARE(p.writeBytes, std::uint64_t(8192));
        QCOMPARE(scan.processes[1].pid, 4194304);
        QCOMPARE(scan.processes[1].name, std::string("tmux: server"));
        QCOMPARE(ProcessIo::scan(root.toStdString()).size(), std::size_t(2));
        QVERIFY(ProcessIo::scan((tmp.path() + "/missing").toStdString()).empty());
    }

    void groupSumsOneProcessGroup() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString root = tmp.path();
        fakeProcess(root, 700, "vllm", 700, 1000, 10);
        fakeProcess(root, 701, "worker-0", 700, 2000, 20);
        fakeProcess(root, 702, "worker-1", 700, 4000, 40);
        fakeProcess(root, 800, "fio", 800, 1 << 30, 1 << 30); // another group
        test::writeFile(root + "/703/stat", statLine(703, "worker-2", 700, 700, 1)); // no io
        const auto g = ProcessIo::group(700, root.toStdString());
        QVERIFY(g);
        QCOMPARE(g->processes, 3);
        QCOMPARE(g->readBytes, std::uint64_t(7000));
        QCOMPARE(g->writeBytes, std::uint64_t(70));
        const auto other = ProcessIo::group(800, root.toStdString());
        QVERIFY(other);
        QCOMPARE(other->processes, 1);
        QCOMPARE(other->readBytes, std::uint64_t(1) << 30);
        QVERIFY(!ProcessIo::group(900, root.toStdString())); // nobody: absent, not zero
        QVERIFY(!ProcessIo::group(0, root.toStdString()));
    }

    // The real kernel: a child in its own process group writes 8 MiB with O_DIRECT, fsyncs,
    // drops the file from the page cache and reads it back; its group's counters show both,
    // and none of this test's own I/O.
    void realGroupSeesItsChildsBlockIo() {
        // The build tree sits on a real disk (tmpfs refuses O_DIRECT and has no block layer).
        QTemporaryDir dir(QDir::currentPath() + "/processio-XXXXXX");
        QVERIFY(dir.isValid());
        const QByteArray path = QFile::encodeName(dir.filePath("payload.bin"));
        constexpr std::size_t kChunk = 1 << 20;
        constexpr int kChunks = 8;
        {
            const int probe =
                ::open(path.constData(), O_CREAT | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
            if (probe < 0 && errno == EINVAL)
                QSKIP("this filesystem refuses O_DIRECT: writes would stay in the page cache");
            QVERIFY2(probe >= 0, std::strerror(errno));
            ::close(probe);
        }
        void* buffer = nullptr;
        QCOMPARE(::posix_memalign(&buffer, 4096, kChunk), 0);
        std::memset(buffer, 0x5a, kChunk);
        int done[2];
        int release[2];
        QCOMPARE(::pipe2(done, O_CLOEXEC), 0);
        QCOMPARE(::pipe2(release, O_CLOEXEC), 0);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Only async-signal-safe calls from here: the test process has threads. The
            // parent's pipe ends are closed here too, or release would never see its end.
            ::close(done[0]);
            ::close(release[1]);
            ::setpgid(0, 0);
            int fd = ::open(path.constData(), O_WRONLY | O_TRUNC | O_DIRECT | O_CLOEXEC);
            bool ok = fd >= 0;
            for (int i = 0; ok && i < kChunks; ++i)
                ok = ::write(fd, buffer, kChunk) == static_cast<ssize_t>(kChunk);
            ok = ok && ::fsync(fd) == 0 && ::close(fd) == 0;
            fd = ok ? ::open(path.constData(), O_RDONLY | O_CLOEXEC) : -1;
            ok = fd >= 0 && ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
            ssize_t n = 1;
            while (ok && n > 0) {
                n = ::read(fd, buffer, kChunk);
                ok = n >= 0;
            }
            const char status = ok ? 'y' : 'n';
            (void)!::write(done[1], &status, 1);
            char wait = 0;
            (void)!::read(release[0], &wait, 1); // alive until the test has looked
            ::_exit(ok ? 0 : 1);
        }
        ::setpgid(child, child); // also from here: the group exists before anyone looks
        ::close(done[1]);
        ::close(release[0]);
        std::free(buffer);
        // No check returns before the child is released and reaped: it would wait forever.
        char status = 0;
        const ssize_t got = ::read(done[0], &status, 1);
        ::close(done[0]);
        const auto group = ProcessIo::group(child);
        const pid_t ownGroup = ::getpgrp();
        ::close(release[1]);
        int exitStatus = 0;
        const pid_t reaped = ::waitpid(child, &exitStatus, 0);
        QCOMPARE(got, ssize_t(1));
        QCOMPARE(reaped, child);
        QCOMPARE(status, 'y');
        QVERIFY(WIFEXITED(exitStatus) && WEXITSTATUS(exitStatus) == 0);
        QVERIFY(ownGroup != child);
        QVERIFY(group);
        QCOMPARE(group->processes, 1);
        QVERIFY2(group->writeBytes >= std::uint64_t(kChunks) * kChunk,
                 qPrintable(QString::number(group->writeBytes)));
        QVERIFY2(group->readBytes >= std::uint64_t(kChunks) * kChunk,
                 qPrintable(QString::number(group->readBytes)));
        // Reaped, the child is gone from /proc: its group is absent, not zero.
        QVERIFY(!ProcessIo::group(child));
        // And the whole machine's scan holds this test itself, with its own start time.
        bool self = false;
        for (const auto& p : ProcessIo::scan())
            self = self || (p.pid == ::getpid() && p.startTicks > 0);
        QVERIFY(self);
    }
};

QTEST_GUILESS_MAIN(TestProcessIo)
#include "tst_processio.moc"
