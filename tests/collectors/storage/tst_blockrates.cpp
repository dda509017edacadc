#include "TestSupport.h"
#include "collectors/storage/BlockRates.h"

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

    void thirtyTwoBitFieldsWrapModulo2To32() {
        const auto t0 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.8-u32-wrap-t0.txt"));
        const auto t1 =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.8-u32-wrap-t1.txt"));
        // nvme0n1, 64 I/Os in flight: read time, io_ticks and time in queue cross 2^32 ms.
        const auto r = BlockRates::compute(find(t0, "nvme0n1"), find(t1, "nvme0n1"), 1'000'000'000);
        QVERIFY(r);
        QCOMPARE(r->readBytesPerS, 104857600.0);
        QCOMPARE(r->writeBytesPerS, 10485760.0);
        QCOMPARE(*r->readAwaitS, 0.058);  // +58000 ms over 1000 reads
        QCOMPARE(*r->writeAwaitS, 0.060); // +6000 ms over 100 writes, no wrap
        QCOMPARE(r->utilPct, 100.0);      // +1000 ms busy
        QCOMPARE(r->queueDepth, 64.0);    // +64000 ms in queue
    }

    void millisecondsBeyond32BitsGoingBackIsAReset() {
        DiskStat a;
        a.reads = 10;
        a.weightedIoMs = 5'000'000'000; // cannot come from a 32-bit field
        DiskStat b = a;
        b.reads = 20;
        b.weightedIoMs = 100;
        QVERIFY(!BlockRates::compute(a, b, 1'000'000'000));
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
