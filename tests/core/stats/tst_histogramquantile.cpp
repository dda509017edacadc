#include "TestSupport.h"
#include "collectors/engine/PrometheusTextParser.h"
#include "core/stats/HistogramQuantile.h"

#include <cmath>
#include <limits>

using namespace tierscope;

constexpr double kInf = std::numeric_limits<double>::infinity();

// Known answers worked out by hand with Prometheus' interpolation rule.
class TestHistogramQuantile : public QObject {
    Q_OBJECT
  private slots:
    void interpolatesInsideTheBucket() {
        const HistogramQuantile::Buckets b{{0.1, 10}, {0.5, 60}, {1.0, 90}, {kInf, 100}};
        QCOMPARE(HistogramQuantile::compute(0.5, b),
                 0.1 + 0.4 * (40.0 / 50.0));                             // rank 50 in (0.1, 0.5]
        QCOMPARE(HistogramQuantile::compute(0.9, b), 1.0);               // rank 90 ends (0.5, 1]
        QCOMPARE(HistogramQuantile::compute(0.05, b), 0.1 * 5.0 / 10.0); // first bucket starts at 0
        QCOMPARE(HistogramQuantile::compute(0.99, b), 1.0); // rank in +Inf: highest finite bound
    }

    void unsortedInputAndEdgeCases() {
        const HistogramQuantile::Buckets shuffled{{kInf, 100}, {1.0, 90}, {0.1, 10}, {0.5, 60}};
        QCOMPARE(HistogramQuantile::compute(0.5, shuffled), 0.42);
        QVERIFY(
            std::isnan(HistogramQuantile::compute(0.5, {{0.1, 0}, {kInf, 0}}))); // no observations
        QVERIFY(std::isnan(HistogramQuantile::compute(0.5, {{0.1, 5}, {1.0, 9}}))); // no +Inf
        QVERIFY(std::isinf(HistogramQuantile::compute(1.5, shuffled)));
        QVERIFY(std::isinf(HistogramQuantile::compute(-0.5, shuffled)));
        // A count that dips (racing scrape) is raised to its predecessor, so 0.5 holds 10, not 8:
        // rank 10 of 20 is then reached in the first bucket.
        QCOMPARE(HistogramQuantile::compute(0.5, {{0.1, 10}, {0.5, 8}, {1.0, 20}, {kInf, 20}}),
                 0.1);
        QCOMPARE(HistogramQuantile::compute(0.75, {{0.1, 10}, {0.5, 8}, {1.0, 20}, {kInf, 20}}),
                 0.5 + 0.5 * 0.5);
    }

    void deltasBetweenScrapes() {
        const HistogramQuantile::Buckets t0{{0.1, 10}, {0.5, 60}, {kInf, 100}};
        const HistogramQuantile::Buckets t1{{0.1, 15}, {0.5, 80}, {kInf, 120}};
        const auto d = HistogramQuantile::delta(t0, t1);
        QCOMPARE(d, (HistogramQuantile::Buckets{{0.1, 5}, {0.5, 20}, {kInf, 20}}));
        // rank 10 of 20 falls in (0.1, 0.5] with 5 below and 15 inside.
        QCOMPARE(HistogramQuantile::compute(0.5, d), 0.1 + 0.4 * (5.0 / 15.0));
        // A reset (counts went down) makes the later scrape the whole interval.
        QCOMPARE(HistogramQuantile::delta(t1, t0), t0);
    }

    void summedDeltaTakesEachSeriesOnItsOwn() {
        const HistogramQuantile::Series t0{{"engine=0", {{0.1, 10}, {1.0, 20}, {kInf, 20}}},
                                           {"engine=1", {{0.1, 0}, {1.0, 500}, {kInf, 1000}}},
                                           {"engine=3", {{0.1, 9}, {1.0, 9}, {kInf, 9}}}};
        const HistogramQuantile::Series t1{{"engine=0", {{0.1, 14}, {1.0, 28}, {kInf, 28}}},
                                           {"engine=1", {{0.1, 2}, {1.0, 2}, {kInf, 2}}},
                                           {"engine=2", {{0.1, 1}, {1.0, 1}, {kInf, 1}}}};
        // engine 0 grew by 4 / 8 / 8; engine 1 restarted and counts from zero (2 / 2 / 2);
        // engine 2 is new and engine 3 is gone: one sample each, they add nothing.
        QCOMPARE(HistogramQuantile::summedDelta(t0, t1),
                 (HistogramQuantile::Buckets{{0.1, 6}, {1.0, 10}, {kInf, 10}}));
        // Summing first would see 1030 -> 31 at +Inf and take the whole t1 as the interval.
        QCOMPARE(HistogramQuantile::summedDelta({}, {}), HistogramQuantile::Buckets{});
    }

    void capturedVllmTtft() {
        const auto r = PrometheusTextParser::parse(test::fixture("engine/vllm-0.6-v0.txt"));
        HistogramQuantile::Buckets b;
        for (const auto& s : r.samples) {
            if (s.name != "vllm:time_to_first_token_seconds_bucket")
                continue;
            double le = 0;
            QVERIFY(PrometheusTextParser::parseValue(*s.label("le"), le));
            b.emplace_back(le, s.value);
        }
        QCOMPARE(b.size(), std::size_t(17)); // 16 finite bounds and +Inf
        // 8499 observations, rank 4249.5 falls in (0.5, 0.75]: 3566 below, 3246 inside.
        QCOMPARE(HistogramQuantile::compute(0.5, b), 0.5 + 0.25 * (683.5 / 3246.0));
        // rank 8414.01 falls in (2.5, 5.0]: 8297 below, 135 inside.
        QCOMPARE(HistogramQuantile::compute(0.99, b), 2.5 + 2.5 * ((0.99 * 8499 - 8297) / 135.0));
    }
};

QTEST_GUILESS_MAIN(TestHistogramQuantile)
#include "tst_histogramquantile.moc"
