#include "TestSupport.h"
#include "collectors/storage/DiskstatsParser.h"

using namespace tierscope;

class TestDiskstatsParser : public QObject {
    Q_OBJECT
  private slots:
    void parsesCapturedKernelOutput() {
        const auto disks =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.18.44.txt"));
        QCOMPARE(disks.size(), std::size_t(10));
        const auto& vda = disks[8];
        QCOMPARE(vda.name, std::string("vda"));
        QCOMPARE(vda.major, 254u);
        QCOMPARE(vda.reads, 31915u);
        QCOMPARE(vda.sectorsRead, 2956506u);
        QCOMPARE(vda.readMs, 19813u);
        QCOMPARE(vda.writes, 16004u);
        QCOMPARE(vda.sectorsWritten, 1829736u);
        QCOMPARE(vda.writeMs, 5559u);
        QCOMPARE(vda.ioMs, 10032u);
        QCOMPARE(vda.weightedIoMs, 25998u);
    }

    void parsesMultipathLayout() {
        const auto disks =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-6.1-nvme-multipath-t0.txt"));
        QCOMPARE(disks.size(), std::size_t(8));
        QCOMPARE(disks[3].name, std::string("nvme1c1n1"));
        QCOMPARE(disks[3].sectorsRead, 4000000u);
        QCOMPARE(disks[5].name, std::string("nvme1n1"));
        QCOMPARE(disks[5].weightedIoMs, 5510u);
    }

    void parsesPre418Layout() {
        const auto disks =
            DiskstatsParser::parse(test::fixture("proc/diskstats-linux-4.15-14-fields.txt"));
        QCOMPARE(disks.size(), std::size_t(2));
        QCOMPARE(disks[0].name, std::string("sda"));
        QCOMPARE(disks[0].weightedIoMs, 52920u);
    }

    void skipsTruncatedAndNonNumericLines() {
        const auto disks = DiskstatsParser::parse("8 0 sda 1 2 3\n8 0 sdb a 0 0 0 0 0 0 0 0 0 0\n");
        QVERIFY(disks.empty());
    }
};

QTEST_GUILESS_MAIN(TestDiskstatsParser)
#include "tst_diskstatsparser.moc"
