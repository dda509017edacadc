#include "TestSupport.h"
#include "collectors/host/MeminfoParser.h"

using namespace tierscope;

class TestMeminfoParser : public QObject {
    Q_OBJECT
  private slots:
    void parsesCapturedKernelOutputInBytes() {
        const auto mem = MeminfoParser::parse(test::fixture("proc/meminfo-linux-6.18.44.txt"));
        QCOMPARE(mem.at("MemTotal"), 24684096ull * 1024);
        QCOMPARE(mem.at("MemAvailable"), 24341900ull * 1024);
        QCOMPARE(mem.at("Cached"), 429816ull * 1024);
        QCOMPARE(mem.at("Dirty"), 39508ull * 1024);
        QCOMPARE(mem.at("Writeback"), 0ull);
        // Unit-less counters are not scaled.
        QVERIFY(mem.count("HugePages_Total") == 1);
        QVERIFY(mem.at("HugePages_Total") < 1024 * 1024);
    }

    void skipsMalformedLines() {
        const auto mem = MeminfoParser::parse("MemTotal: abc kB\nnocolon 5\nDirty: 4 kB\n");
        QCOMPARE(mem.size(), std::size_t(1));
        QCOMPARE(mem.at("Dirty"), 4096ull);
    }
};

QTEST_GUILESS_MAIN(TestMeminfoParser)
#include "tst_meminfoparser.moc"
