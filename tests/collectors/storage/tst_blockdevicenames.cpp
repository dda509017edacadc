#include "TestSupport.h"
#include "collectors/storage/BlockDeviceNames.h"

using namespace tierscope;

class TestBlockDeviceNames : public QObject {
    Q_OBJECT
  private slots:
    void multipathHead() {
        QCOMPARE(*BlockDeviceNames::multipathHead("nvme1c2n1"), std::string("nvme1n1"));
        QCOMPARE(*BlockDeviceNames::multipathHead("nvme12c3n45"), std::string("nvme12n45"));
        QVERIFY(!BlockDeviceNames::multipathHead("nvme1n1"));
        QVERIFY(!BlockDeviceNames::multipathHead("nvme1c2n1p1"));
        QVERIFY(!BlockDeviceNames::multipathHead("nvmec2n1"));
        QVERIFY(!BlockDeviceNames::multipathHead("sda"));
    }

    void ignoredAndTotals() {
        QVERIFY(BlockDeviceNames::isIgnored("loop0"));
        QVERIFY(BlockDeviceNames::isIgnored("zram0"));
        QVERIFY(BlockDeviceNames::isIgnored("ram15"));
        QVERIFY(!BlockDeviceNames::isIgnored("nvme0n1"));
        QVERIFY(BlockDeviceNames::countsInTotal("nvme1n1"));
        QVERIFY(BlockDeviceNames::countsInTotal("vda"));
        QVERIFY(!BlockDeviceNames::countsInTotal("nvme1c1n1"));
        QVERIFY(!BlockDeviceNames::countsInTotal("dm-0"));
        QVERIFY(!BlockDeviceNames::countsInTotal("md127"));
    }

    void stackedKinds() {
        QCOMPARE(*BlockDeviceNames::stackedKind("dm-3"), std::string("dm"));
        QCOMPARE(*BlockDeviceNames::stackedKind("md0"), std::string("md"));
        QCOMPARE(*BlockDeviceNames::stackedKind("bcache0"), std::string("bcache"));
        QCOMPARE(*BlockDeviceNames::stackedKind("drbd12"), std::string("drbd"));
        QCOMPARE(*BlockDeviceNames::stackedKind("zd32"), std::string("zvol"));
        QVERIFY(!BlockDeviceNames::stackedKind("zd"));
        QVERIFY(!BlockDeviceNames::stackedKind("zd0p1x"));
        QVERIFY(!BlockDeviceNames::stackedKind("bcachefs"));
        QVERIFY(!BlockDeviceNames::stackedKind("nvme0n1"));
        QVERIFY(!BlockDeviceNames::stackedKind("sda"));
        QVERIFY(!BlockDeviceNames::countsInTotal("bcache0"));
        QVERIFY(!BlockDeviceNames::countsInTotal("drbd0"));
        QVERIFY(!BlockDeviceNames::countsInTotal("zd0"));
    }
};

QTEST_GUILESS_MAIN(TestBlockDeviceNames)
#include "tst_blockdevicenames.moc"
