#include "TestSupport.h"
#include "core/util/DurationParser.h"

using namespace tierscope;
using namespace std::chrono_literals;

class TestDurationParser : public QObject {
    Q_OBJECT
  private slots:
    void units() {
        QCOMPARE(*DurationParser::parse("30s"), std::chrono::nanoseconds(30s));
        QCOMPARE(*DurationParser::parse("30"), std::chrono::nanoseconds(30s));
        QCOMPARE(*DurationParser::parse("250ms"), std::chrono::nanoseconds(250ms));
        QCOMPARE(*DurationParser::parse("1.5s"), std::chrono::nanoseconds(1500ms));
        QCOMPARE(*DurationParser::parse("10m"), std::chrono::nanoseconds(10min));
        QCOMPARE(*DurationParser::parse("2h"), std::chrono::nanoseconds(2h));
    }

    void rejectsGarbage() {
        for (const char* bad :
             {"", "s", "-5s", "5x", "5 s", "1e3s", "5s5", "99999999999h", "1..2s"})
            QVERIFY2(!DurationParser::parse(bad), bad);
    }
};

QTEST_GUILESS_MAIN(TestDurationParser)
#include "tst_durationparser.moc"
