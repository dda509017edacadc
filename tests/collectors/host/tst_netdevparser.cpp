#include "TestSupport.h"
#include "collectors/host/NetDevParser.h"

using namespace tierscope;

class TestNetDevParser : public QObject {
    Q_OBJECT
  private slots:
    void parsesCapturedKernelOutput() {
        const auto devs = NetDevParser::parse(test::fixture("proc/net-dev-linux-6.18.44.txt"));
        QCOMPARE(devs.size(), std::size_t(4));
        QCOMPARE(devs[0].interface, std::string("lo"));
        QCOMPARE(devs[0].rxBytes, 3267u);
        QCOMPARE(devs[3].interface, std::string("eth0"));
        QCOMPARE(devs[3].rxBytes, 64736792u);
        QCOMPARE(devs[3].rxPackets, 1502u);
        QCOMPARE(devs[3].txBytes, 65886u);
        QCOMPARE(devs[3].txPackets, 800u);
    }

    void handlesNamesGluedToCounters() {
        // Large counters push the first field against the colon.
        const auto devs = NetDevParser::parse("eth1:123456789012 9 0 0 0 0 0 0 42 7 0 0 0 0 0 0\n");
        QCOMPARE(devs.size(), std::size_t(1));
        QCOMPARE(devs[0].rxBytes, 123456789012u);
        QCOMPARE(devs[0].txBytes, 42u);
    }
};

QTEST_GUILESS_MAIN(TestNetDevParser)
#include "tst_netdevparser.moc"
