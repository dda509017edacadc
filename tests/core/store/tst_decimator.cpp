#include "TestSupport.h"
#include "core/store/Decimator.h"

using namespace tierscope;

class TestDecimator : public QObject {
    Q_OBJECT
  private slots:
    void keepsExtremesPerSlot() {
        std::vector<Sample> in;
        for (int i = 0; i < 100'000; ++i)
            in.push_back({i, i == 31'337 ? 1e6 : (i == 77'777 ? -1e6 : double(i % 10))});
        const auto out = Decimator::decimate(in, 0, 99'999, 100);
        QCOMPARE(out.size(), std::size_t(100));
        std::int64_t count = 0;
        double max = -1e300, min = 1e300;
        for (const auto& b : out) {
            count += b.count;
            max = std::max(max, b.max);
            min = std::min(min, b.min);
            QCOMPARE(b.widthNs, std::int64_t(1000));
        }
        QCOMPARE(count, std::int64_t(100'000));
        QCOMPARE(max, 1e6); // a one-sample spike survives decimation
        QCOMPARE(min, -1e6);
        QCOMPARE(out[31].max, 1e6);
        QCOMPARE(out[31].tNs, std::int64_t(31'000));
    }

    void gapsStayGaps() {
        const std::vector<Sample> in{{0, 1.0}, {10, 2.0}, {990, 3.0}};
        const auto out = Decimator::decimate(in, 0, 999, 10);
        QCOMPARE(out.size(), std::size_t(2)); // empty slots are omitted, not zero
        QCOMPARE(out[0].count, std::int64_t(2));
        QCOMPARE(out[0].mean(), 1.5);
        QCOMPARE(out[1].tNs, std::int64_t(900));
    }

    void outOfRangeSamplesAreIgnored() {
        const std::vector<Sample> in{{-5, 9.0}, {5, 1.0}, {2000, 9.0}};
        const auto out = Decimator::decimate(in, 0, 999, 4);
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(out[0].max, 1.0);
    }

    void mergesPreAggregatedBuckets() {
        Decimator d(0, 99, 2);
        d.addBucket(0, 1.0, 5.0, 12.0, 4);
        d.addBucket(10, -2.0, 3.0, 1.0, 2);
        const auto out = d.result();
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(out[0].min, -2.0);
        QCOMPARE(out[0].max, 5.0);
        QCOMPARE(out[0].count, std::int64_t(6));
        QCOMPARE(out[0].sum, 13.0);
    }
};

QTEST_GUILESS_MAIN(TestDecimator)
#include "tst_decimator.moc"
