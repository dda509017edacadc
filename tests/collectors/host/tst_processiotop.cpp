#include "collectors/host/ProcessIoTop.h"

#include <QtTest>
#include <cmath>
#include <limits>

using namespace tierscope;

namespace {

constexpr std::uint64_t kMB = 1'000'000;

ProcessIoSample process(int pid, const char* name, std::uint64_t start, std::uint64_t read,
                        std::uint64_t write, int ppid = 1) {
    ProcessIoSample s;
    s.pid = pid;
    s.pgid = pid;
    s.ppid = ppid;
    s.name = name;
    s.startTicks = start;
    s.readBytes = read;
    s.writeBytes = write;
    return s;
}

} // namespace

class TestProcessIoTop : public QObject {
    Q_OBJECT
  private slots:
    void ratesAndSharesOverTheInterval() {
        const std::vector<ProcessIoSample> t0{
            process(10, "vllm", 100, 1000 * kMB, 0),
            process(20, "fio", 200, 0, 500 * kMB),
            process(30, "idle", 300, 50, 50),
        };
        const std::vector<ProcessIoSample> t1{
            process(10, "vllm", 100, 1400 * kMB, 20 * kMB), // +400 MB read, +20 MB written
            process(20, "fio", 200, 100 * kMB, 680 * kMB),  // +100 MB read, +180 MB written
            process(30, "idle", 300, 50, 50),
        };
        const auto top = ProcessIoTop::compute(t0, t1, 2.0, 10);
        QVERIFY(top);
        QCOMPARE(top->matched, 3);
        QCOMPARE(top->readBytesPerS, 250.0 * kMB);
        QCOMPARE(top->writeBytesPerS, 100.0 * kMB);
        QCOMPARE(top->byRead.size(), std::size_t(2)); // "idle" moved nothing
        QCOMPARE(top->byRead[0].pid, 10);
        QCOMPARE(top->byRead[0].name, std::string("vllm"));
        QCOMPARE(top->byRead[0].readBytesPerS, 200.0 * kMB);
        QCOMPARE(top->byRead[0].writeBytesPerS, 10.0 * kMB);
        QCOMPARE(*top->byRead[0].readShare, 0.8);
        QCOMPARE(*top->byRead[0].writeShare, 0.1);
        QCOMPARE(*top->byRead[0].share, 420.0 / 700);
        QCOMPARE(top->byWrite[0].pid, 20);
        QCOMPARE(top->byWrite[0].writeBytesPerS, 90.0 * kMB);
        QCOMPARE(*top->byWrite[0].writeShare, 0.9);
        QCOMPARE(top->byTotal.size(), std::size_t(2));
        QCOMPARE(top->byTotal[0].pid, 10); // 420 MB against fio's 280 MB
        QCOMPARE(*top->byTotal[1].share, 280.0 / 700);
    }

    void reusedPidIsAnotherProcess() {
        // pid 10 exited with 10 GB read and a new process got its number: neither a negative
        // delta nor 10 GB in one second.
        const std::vector<ProcessIoSample> t0{process(10, "old", 100, 10'000 * kMB, 0),
                                              process(11, "same", 110, 5 * kMB, 0)};
        const std::vector<ProcessIoSample> t1{process(10, "new", 900, 1 * kMB, 0),
                                              process(11, "same", 110, 7 * kMB, 0)};
        const auto top = ProcessIoTop::compute(t0, t1, 1.0, 10);
        QVERIFY(top);
        QCOMPARE(top->matched, 1);
        QCOMPARE(top->byRead.size(), std::size_t(1));
        QCOMPARE(top->byRead[0].pid, 11);
        QCOMPARE(top->byRead[0].readBytesPerS, 2.0 * kMB);
        QCOMPARE(top->readBytesPerS, 2.0 * kMB);
        QCOMPARE(*top->byRead[0].readShare, 1.0);
        // The same start but counters that went down: not one process either.
        const std::vector<ProcessIoSample> t2{process(11, "same", 110, 3 * kMB, 0)};
        const auto back = ProcessIoTop::compute(t1, t2, 1.0, 10);
        QVERIFY(back);
        QCOMPARE(back->matched, 0);
        QVERIFY(back->byRead.empty());
        QCOMPARE(back->readBytesPerS, 0.0);
    }

    void newProcessHasNoRateYet() {
        const std::vector<ProcessIoSample> t0{process(10, "shell", 100, 0, 0)};
        const std::vector<ProcessIoSample> t1{process(10, "shell", 100, 0, 0),
                                              process(12, "dd", 150, 0, 900 * kMB)};
        const auto top = ProcessIoTop::compute(t0, t1, 1.0, 10);
        QVERIFY(top);
        QCOMPARE(top->matched, 1);
        QVERIFY(top->byWrite.empty());
        QVERIFY(top->byTotal.empty());
    }

    void reapedChildIsNotCountedAgainInItsParent() {
        // dd (pid 21) read 100 MB while shown on its own, read 4 MB more, exited, and its
        // shell waited for it: the kernel added its 104 MB to the shell's counters.
        const std::vector<ProcessIoSample> t0{process(20, "bash", 100, 2 * kMB, 0),
                                              process(21, "dd", 150, 100 * kMB, 0, 20),
                                              process(30, "orphan", 300, 9 * kMB, 0, 29)};
        const std::vector<ProcessIoSample> t1{process(20, "bash", 100, 106 * kMB, 0)};
        const auto top = ProcessIoTop::compute(t0, t1, 1.0, 10);
        QVERIFY(top);
        QCOMPARE(top->matched, 1);
        QCOMPARE(top->byRead.size(), std::size_t(1));
        QCOMPARE(top->byRead[0].pid, 20);
        QCOMPARE(top->byRead[0].readBytesPerS, 4.0 * kMB); // dd's last moments only
        QVERIFY(!top->byRead[0].writeShare);               // nobody wrote: no share of nothing
        QCOMPARE(*top->byRead[0].share, 1.0);
        // A parent that did not wait (its count did not grow) is clamped at zero, not below.
        const std::vector<ProcessIoSample> t2{process(20, "bash", 100, 2 * kMB, 0)};
        const auto clamped = ProcessIoTop::compute(t0, t2, 1.0, 10);
        QVERIFY(clamped);
        QCOMPARE(clamped->matched, 1);
        QVERIFY(clamped->byRead.empty());
        QCOMPARE(clamped->readBytesPerS, 0.0);
    }

    void keepsTheTopNInOrder() {
        std::vector<ProcessIoSample> t0;
        std::vector<ProcessIoSample> t1;
        for (int pid = 1; pid <= 5; ++pid) {
            t0.push_back(process(pid, "p", 1, 0, 0));
            t1.push_back(process(pid, "p", 1, pid == 3 ? 5 * kMB : 1 * kMB, 0));
        }
        const auto top = ProcessIoTop::compute(t0, t1, 1.0, 2);
        QVERIFY(top);
        QCOMPARE(top->matched, 5);
        QCOMPARE(top->byRead.size(), std::size_t(2));
        QCOMPARE(top->byRead[0].pid, 3);
        QCOMPARE(top->byRead[1].pid, 1);         // ties: the lower pid first
        QCOMPARE(top->readBytesPerS, 9.0 * kMB); // the total is of all, not of the top
        QCOMPARE(*top->byRead[0].readShare, 5.0 / 9);
        QVERIFY(ProcessIoTop::compute(t0, t1, 1.0, 0)->byRead.empty());
    }

    void noElapsedTimeIsNoRate() {
        const std::vector<ProcessIoSample> t{process(1, "p", 1, 0, 0)};
        QVERIFY(!ProcessIoTop::compute(t, t, 0.0, 10));
        QVERIFY(!ProcessIoTop::compute(t, t, -1.0, 10));
        QVERIFY(!ProcessIoTop::compute(t, t, std::nan(""), 10));
        QVERIFY(!ProcessIoTop::compute(t, t, std::numeric_limits<double>::infinity(), 10));
    }
};

QTEST_GUILESS_MAIN(TestProcessIoTop)
#include "tst_processiotop.moc"
