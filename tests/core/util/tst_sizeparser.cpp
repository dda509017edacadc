#include "core/util/SizeParser.h"

#include <QtTest>

using namespace tierscope;

class TestSizeParser : public QObject {
    Q_OBJECT
  private slots:
    void parses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("plain") << "4096" << 4096ull;
        QTest::newRow("fio k") << "4k" << 4096ull;
        QTest::newRow("KiB") << "1KiB" << 1024ull;
        QTest::newRow("MiB") << "1MiB" << 1048576ull;
        QTest::newRow("GiB") << "8GiB" << 8589934592ull;
        QTest::newRow("SI GB") << "10GB" << 10000000000ull;
        QTest::newRow("fractional") << "1.5M" << 1572864ull;
        QTest::newRow("case") << "2gib" << 2147483648ull;
        QTest::newRow("bytes suffix") << "12B" << 12ull;
        QTest::newRow("TiB") << "1TiB" << 1099511627776ull;
    }
    void parses() {
        QFETCH(QString, text);
        QFETCH(qulonglong, bytes);
        const auto parsed = SizeParser::parse(text.toStdString());
        QVERIFY(parsed);
        QCOMPARE(*parsed, bytes);
    }

    void rejects_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("unit only") << "GiB";
        QTest::newRow("negative") << "-1G";
        QTest::newRow("unknown unit") << "3X";
        QTest::newRow("bad suffix") << "3Gx";
        QTest::newRow("too big") << "20000000T";
    }
    void rejects() {
        QFETCH(QString, text);
        QVERIFY(!SizeParser::parse(text.toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestSizeParser)
#include "tst_sizeparser.moc"
