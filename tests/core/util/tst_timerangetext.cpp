#include "core/util/TimeRangeText.h"

#include <QtTest>

using namespace tierscope;

// A range typed on the command line (`gui --range`) and written into a copied link.
class TestTimeRangeText : public QObject {
    Q_OBJECT
  private:
    static constexpr std::int64_t kS = 1'000'000'000;
    using Range = TimeRangeText::Range;

  private slots:
    void parsesBothEndsOrOne() {
        QCOMPARE(TimeRangeText::parse("10s..40s"), std::optional(Range{10 * kS, 40 * kS}));
        QCOMPARE(TimeRangeText::parse("..40s"), std::optional(Range{std::nullopt, 40 * kS}));
        QCOMPARE(TimeRangeText::parse("10s.."), std::optional(Range{10 * kS, std::nullopt}));
        QCOMPARE(TimeRangeText::parse("1.5m..2m"), std::optional(Range{90 * kS, 120 * kS}));
        QCOMPARE(TimeRangeText::parse("250ms..3"), std::optional(Range{kS / 4, 3 * kS}));
        QCOMPARE(TimeRangeText::parse("1m..2m30s"), std::optional(Range{60 * kS, 150 * kS}));
        QCOMPARE(TimeRangeText::parseOffset("1h2m3.5s"), std::optional(3723 * kS + kS / 2));
    }

    void refusesWhatIsNoRange() {
        for (const char* bad : {"", "..", "10s", "40s..10s", "10s..10s", "-5s..10s", "a..b",
                                "10s...40s", "10s..20s..30s", "10x..20s", "1m30..2m"})
            QVERIFY2(!TimeRangeText::parse(bad), bad);
    }

    void formatsToTheMillisecondAndParsesBack() {
        QCOMPARE(TimeRangeText::format({10 * kS, 40 * kS}), std::string("10s..40s"));
        QCOMPARE(TimeRangeText::format({12'500'000'000, std::nullopt}), std::string("12.5s.."));
        QCOMPARE(TimeRangeText::format({std::nullopt, 1'234'567'890}), std::string("..1.235s"));
        QCOMPARE(TimeRangeText::format({0, 1'000'000}), std::string("0s..0.001s"));
        const Range shown{3'250'000'000, 61'125'000'000};
        QCOMPARE(TimeRangeText::parse(TimeRangeText::format(shown)), std::optional(shown));
    }
};

QTEST_GUILESS_MAIN(TestTimeRangeText)
#include "tst_timerangetext.moc"
