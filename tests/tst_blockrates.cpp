#include "TestSupport.h"
#include "collectors/BlockRates.h"

using namespace tierscope;

class TestBlockRates : public QObject {
    Q_OBJECT
  private:
    static DiskStat find(const std::vector<DiskStat>& disks, const std::string& name) {
        for (const auto& d : disks)
            if (d.name == name)
                return d;
        qFatal("no %s", name.c_str());
    }

  private slots:
    void iostatFiguresFromKnownDeltas() {
        const auto t0 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t0.txt"));
        const auto t1 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t1.txt"));
        // nvme0n1: +100 reads, +2048 sectors, +50 ms; +10 writes, +80 sectors, +30 ms;
        // io_ticks +500 ms, weighted +800 ms over 1 s.
        const auto r = BlockRates::compute(find(t0, "nvme0n1"), find(t1, "nvme0n1"), 1'000'000'000);
        QVERIFY(r);
        QCOMPARE(r->readBytesPerS, 1048576.0);
        QCOMPARE(r->writeBytesPerS, 40960.0);
        QCOMPARE(r->readIops, 100.0);
        QCOMPARE(r->writeIops, 10.0);
        QCOMPARE(*r->readAwaitS, 0.0005);
        QCOMPARE(*r->writeAwaitS, 0.003);
        QCOMPARE(r->utilPct, 50.0);
        QCOMPARE(r->queueDepth, 0.8);
    }

    void halfSecondIntervalDoublesRates() {
        const auto t0 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t0.txt"));
        const auto t1 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t1.txt"));
        const auto r =
            BlockRates::compute(find(t0, "nvme1c1n1"), find(t1, "nvme1c1n1"), 500'000'000);
        QVERIFY(r);
        QCOMPARE(r->readBytesPerS, 2.0 * 104857600.0);
        QCOMPARE(*r->readAwaitS, 0.002);
        QVERIFY(!r->writeAwaitS);    // no write completed: await is unknown, not zero
        QCOMPARE(r->utilPct, 100.0); // 1000 ms busy in 500 ms is capped, as iostat does
        QCOMPARE(r->queueDepth, 4.0);
    }

    void counterResetIsAbsent() {
        const auto t1 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t1.txt"));
        const auto t0 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t0.txt"));
        QVERIFY(!BlockRates::compute(find(t1, "nvme0n1"), find(t0, "nvme0n1"), 1'000'000'000));
        QVERIFY(!BlockRates::compute(find(t0, "nvme0n1"), find(t1, "nvme0n1"), 0));
    }
};

QTEST_GUILESS_MAIN(TestBlockRates)
#include "tst_blockrates.moc"
