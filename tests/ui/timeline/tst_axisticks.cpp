// Axis ticks on 1-2-5 steps from zero: the labels a reader can add up at a glance.
#include "ui/timeline/AxisTicks.h"

#include <QtTest>

using namespace tierscope;

class AxisTicksTest : public QObject {
    Q_OBJECT

  private slots:
    void stepIsOneTwoOrFiveTimesAPowerOfTen_data() {
        QTest::addColumn<double>("span");
        QTest::addColumn<int>("maxTicks");
        QTest::addColumn<double>("step");
        QTest::newRow("87 s in 5") << 87.0 << 5 << 20.0;   // not 0/22/43/65/87
        QTest::newRow("100 in 5") << 100.0 << 5 << 20.0;   // exactly five
        QTest::newRow("2 s in 5") << 2.0 << 5 << 0.5;      // not "0 1 1 2 2"
        QTest::newRow("60 s in 10") << 60.0 << 10 << 10.0; // a minute in tens
        QTest::newRow("300 s in 8") << 300.0 << 8 << 50.0; // five minutes
        QTest::newRow("3600 s in 12") << 3600.0 << 12 << 500.0;
        QTest::newRow("0.003 in 4") << 0.003 << 4 << 0.001;
        QTest::newRow("empty") << 0.0 << 5 << 1.0;
        QTest::newRow("no ticks asked") << 7.0 << 0 << 10.0;
    }
    void stepIsOneTwoOrFiveTimesAPowerOfTen() {
        QFETCH(double, span);
        QFETCH(int, maxTicks);
        QFETCH(double, step);
        QCOMPARE(AxisTicks::step(span, maxTicks), step);
    }

    void topIsTheNextMultipleOfTheStep_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("top");
        QTest::newRow("87") << 87.0 << 100.0;
        QTest::newRow("3.3") << 3.3 << 4.0;
        QTest::newRow("1.5 GB/s") << 1.5 << 1.5; // 0, 0.5, 1, 1.5
        QTest::newRow("1.7 GB/s") << 1.7 << 2.0;
        QTest::newRow("exactly 40") << 40.0 << 40.0;
        QTest::newRow("0.26 s") << 0.26 << 0.3;
        QTest::newRow("nothing") << 0.0 << 1.0;
    }
    void topIsTheNextMultipleOfTheStep() {
        QFETCH(double, value);
        QFETCH(double, top);
        QCOMPARE(AxisTicks::top(value, 5), top);
        // Whole steps up to the top, at most five of them.
        const double step = AxisTicks::step(value, 5);
        const double steps = AxisTicks::top(value, 5) / step;
        if (value > 0) {
            QVERIFY(std::abs(steps - std::round(steps)) < 1e-9);
            QVERIFY(steps <= 5.0 + 1e-9);
        }
    }

    // Labels of 25 px: a 150 px axis holds 6 of them (5 intervals), 60 px two (1 interval);
    // never fewer than one interval, never more than asked for, and all asked for before layout.
    void fittingCountsTheLabelsAnAxisHolds() {
        QCOMPARE(AxisTicks::fitting(150, 25, 5), 5);
        QCOMPARE(AxisTicks::fitting(300, 25, 5), 5);
        QCOMPARE(AxisTicks::fitting(100, 25, 5), 3);
        QCOMPARE(AxisTicks::fitting(60, 25, 5), 1);
        QCOMPARE(AxisTicks::fitting(10, 25, 5), 1);
        QCOMPARE(AxisTicks::fitting(0, 25, 5), 5);
        QCOMPARE(AxisTicks::fitting(100, 0, 5), 5);
        QCOMPARE(AxisTicks::fitting(1e300, 1e-300, 5), 5);
    }

    void decimalsTellTheTicksApart() {
        QCOMPARE(AxisTicks::decimals(20), 0);
        QCOMPARE(AxisTicks::decimals(1), 0);
        QCOMPARE(AxisTicks::decimals(0.5), 1);
        QCOMPARE(AxisTicks::decimals(0.2), 1);
        QCOMPARE(AxisTicks::decimals(0.05), 2);
        QCOMPARE(AxisTicks::decimals(0.001), 3);
    }
};

QTEST_MAIN(AxisTicksTest)
#include "tst_axisticks.moc"
