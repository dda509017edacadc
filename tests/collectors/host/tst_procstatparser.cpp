#include "TestSupport.h"
#include "collectors/host/ProcStatParser.h"

using namespace tierscope;

class TestProcStatParser : public QObject {
    Q_OBJECT
  private slots:
    void parsesCapturedKernelOutput() {
        const auto cpus = ProcStatParser::parse(test::fixture("proc/stat-linux-6.18.44.txt"));
        QCOMPARE(cpus.size(), std::size_t(3));
        QCOMPARE(cpus[0].name, std::string("cpu"));
        QCOMPARE(cpus[0].user, 18114u);
        QCOMPARE(cpus[0].system, 4397u);
        QCOMPARE(cpus[0].idle, 108871u);
        QCOMPARE(cpus[0].iowait, 708u);
        QCOMPARE(cpus[0].softirq, 56u);
        QCOMPARE(cpus[0].steal, 70u);
        QCOMPARE(cpus[2].name, std::string("cpu1"));
        QCOMPARE(cpus[2].user, 9559u);
        // The total line is the sum of the per-core lines, up to the kernel converting each
        // per-CPU nanosecond counter to ticks separately (2 ticks apart in this capture).
        const auto sum = cpus[1].total() + cpus[2].total();
        QVERIFY(cpus[0].total() >= sum && cpus[0].total() - sum <= 2 * 10);
    }

    void busyPercentCountsIowaitAsIdle() {
        CpuTimes a{"cpu", 100, 0, 50, 800, 50, 0, 0, 0};
        CpuTimes b{"cpu", 400, 0, 150, 1200, 250, 0, 0, 0}; // +300 user +100 sys +400 idle +200 io
        QCOMPARE(*ProcStatParser::busyPercent(a, b), 40.0);
    }

    void stealIsNotBusy() {
        // A KVM guest over 1 s: per 200 ticks, user 80, system 20, softirq 10, idle 40,
        // iowait 10 and steal 40 (the hypervisor ran another guest).
        const auto t0 =
            ProcStatParser::parse(test::fixture("proc/stat-linux-6.8-kvm-steal-t0.txt"));
        const auto t1 =
            ProcStatParser::parse(test::fixture("proc/stat-linux-6.8-kvm-steal-t1.txt"));
        QCOMPARE(t0.size(), std::size_t(3));
        QCOMPARE(*ProcStatParser::busyPercent(t0[0], t1[0]), 55.0);
        QCOMPARE(*ProcStatParser::stealPercent(t0[0], t1[0]), 20.0);
        QCOMPARE(*ProcStatParser::busyPercent(t0[1], t1[1]), 55.0);
        QCOMPARE(*ProcStatParser::stealPercent(t0[2], t1[2]), 20.0);
    }

    void noElapsedTimeOrResetIsAbsent() {
        CpuTimes a{"cpu", 100, 0, 50, 800, 50, 0, 0, 0};
        QVERIFY(!ProcStatParser::busyPercent(a, a));
        CpuTimes reset{"cpu", 10, 0, 5, 80, 5, 0, 0, 0};
        QVERIFY(!ProcStatParser::busyPercent(a, reset));
        QVERIFY(!ProcStatParser::stealPercent(a, a));
        QVERIFY(!ProcStatParser::stealPercent(a, reset));
    }

    void ignoresOtherLinesAndGarbage() {
        const auto cpus =
            ProcStatParser::parse("intr 1 2 3\ncpu0 x y z a b\nctxt 5\ncpu 1 2 3 4 5 6 7 8 0 0\n");
        QCOMPARE(cpus.size(), std::size_t(1));
        QCOMPARE(cpus[0].steal, 8u);
    }
};

QTEST_GUILESS_MAIN(TestProcStatParser)
#include "tst_procstatparser.moc"
