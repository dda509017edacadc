#include "TestSupport.h"
#include "collectors/host/InfinibandCounters.h"

using namespace tierscope;

class TestInfinibandCounters : public QObject {
    Q_OBJECT
  private slots:
    void dataCountersAreFourByteWords() {
        const auto files = InfinibandCounters::parseGrepDump(
            test::fixture("sysfs/infiniband/counters-mlx5_0-port1-linux-6.1.txt"));
        QCOMPARE(files.size(), std::size_t(21));
        const auto c = InfinibandCounters::fromCounterFiles("mlx5_0", "1", files);
        QVERIFY(c);
        QCOMPARE(c->rxBytes, 31457280000ull * 4);
        QCOMPARE(c->txBytes, 262144000ull * 4);
    }

    void missingCounterIsAbsent() {
        QVERIFY(!InfinibandCounters::fromCounterFiles("mlx5_0", "1", {{"port_rcv_data", "5"}}));
        QVERIFY(!InfinibandCounters::fromCounterFiles(
            "mlx5_0", "1", {{"port_rcv_data", "x"}, {"port_xmit_data", "1"}}));
    }
};

QTEST_GUILESS_MAIN(TestInfinibandCounters)
#include "tst_infinibandcounters.moc"
