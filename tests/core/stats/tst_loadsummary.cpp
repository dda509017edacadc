#include "TestSupport.h"
#include "core/stats/LoadAccumulator.h"
#include "core/stats/LoadSummary.h"
#include "core/stats/QuantileSketch.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace tierscope;

namespace {

RequestRecord done(double ttft, double e2e, int out, std::vector<double> itl) {
    RequestRecord r;
    r.httpStatus = 200;
    r.ttftS = ttft;
    r.e2eS = e2e;
    r.outputTokens = out;
    r.promptTokens = 100;
    r.itlS = std::move(itl);
    return r;
}

} // namespace

// Known answers, worked by hand with numpy's definitions (linear percentiles, population std).
class TestLoadSummary : public QObject {
    Q_OBJECT
  private slots:
    void percentilesLikeNumpy() {
        QCOMPARE(LoadSummary::percentile({1, 2, 3, 4}, 50), 2.5);
        QCOMPARE(LoadSummary::percentile({4, 1, 3, 2}, 90), 3.7); // rank 2.7
        QCOMPARE(LoadSummary::percentile({7}, 99), 7.0);
        QCOMPARE(LoadSummary::percentile({1, 2, 3, 4, 5}, 99), 4.96);
    }

    void vllmFields() {
        std::vector<RequestRecord> records{done(0.1, 1.1, 11, {0.1, 0.1}),
                                           done(0.3, 2.3, 21, {0.1}), done(0.2, 0.2, 1, {})};
        RequestRecord failed;
        failed.httpStatus = 500;
        failed.error = "HTTP 500";
        records.push_back(failed);
        LoadSummary::Slo slo;
        slo.ttftMs = 250;
        const auto s = LoadSummary::compute(records, 4.0, 3, slo);
        QCOMPARE(s["completed"].get<long>(), 3L);
        QCOMPARE(s["failed"].get<long>(), 1L);
        QCOMPARE(s["total_output_tokens"].get<long>(), 33L);
        QCOMPARE(s["request_throughput"].get<double>(), 0.75);
        QCOMPARE(s["output_throughput"].get<double>(), 8.25);
        QCOMPARE(s["total_token_throughput"].get<double>(), (300.0 + 33.0) / 4.0);
        QCOMPARE(s["request_goodput"].get<double>(), 0.5); // two of three meet ttft <= 250 ms
        QCOMPARE(s["mean_ttft_ms"].get<double>(), 200.0);
        QCOMPARE(s["median_ttft_ms"].get<double>(), 200.0);
        QCOMPARE(s["std_ttft_ms"].get<double>(),
                 std::sqrt((100.0 * 100 + 0 + 100.0 * 100) / 3)); // population
        // TPOT: (1.1 - 0.1) / 10 = 100 ms and (2.3 - 0.3) / 20 = 100 ms; one-token request has
        // none.
        QCOMPARE(s["mean_tpot_ms"].get<double>(), 100.0);
        QCOMPARE(s["mean_itl_ms"].get<double>(), 100.0); // all three gaps pooled
        QCOMPARE(s["p99_e2el_ms"].get<double>(), 1100.0 + 1200.0 * 0.98);
        QCOMPARE(s["max_concurrent_requests"].get<int>(), 3);
    }

    void sketchIsExactUpToItsLimit() {
        QuantileSketch sketch(8);
        std::vector<double> values{0.004, 0.001, 0.003, 0.002, 0.0};
        for (const double v : values)
            sketch.add(v);
        QVERIFY(sketch.exact());
        QCOMPARE(sketch.count(), std::int64_t(5));
        QCOMPARE(sketch.percentile(90), LoadSummary::percentile(values, 90));
        QCOMPARE(sketch.percentile(50), 0.002);
        QCOMPARE(sketch.mean(), 0.002);
        QCOMPARE(sketch.stddev(), std::sqrt(2e-6));     // population: (4+1+1+0+4)e-6 / 5
        QCOMPARE(QuantileSketch().percentile(99), 0.0); // empty: no figure, as numpy's caller
    }

    // Past the limit the values go to log buckets: every percentile stays within the stated
    // relative error of numpy's, and mean and std stay exact.
    void sketchKeepsItsErrorBoundPastTheLimit() {
        std::mt19937_64 random(7);
        std::lognormal_distribution<double> latency(std::log(0.05), 1.0); // ~50 ms, long tail
        std::vector<double> values;
        QuantileSketch sketch(1000);
        for (int i = 0; i < 200'000; ++i) {
            const double v = i % 50 == 0 ? 0.0 : latency(random); // some zero gaps too
            values.push_back(v);
            sketch.add(v);
        }
        QVERIFY(!sketch.exact());
        QCOMPARE(sketch.count(), std::int64_t(200'000));
        double sum = 0;
        for (const double v : values)
            sum += v;
        const double mean = sum / static_cast<double>(values.size());
        QVERIFY(std::abs(sketch.mean() - mean) <= 1e-12 * mean);
        double var = 0;
        for (const double v : values)
            var += (v - mean) * (v - mean);
        const double stddev = std::sqrt(var / static_cast<double>(values.size()));
        QVERIFY(std::abs(sketch.stddev() - stddev) <= 1e-9 * stddev);
        std::sort(values.begin(), values.end());
        for (const double p : {1.0, 50.0, 90.0, 99.0, 99.9}) {
            const double want = LoadSummary::percentile(values, p);
            const double got = sketch.percentile(p);
            QVERIFY2(std::abs(got - want) <= QuantileSketch::kRelativeError * want * 1.000001,
                     qPrintable(QString("p%1: %2 against numpy's %3").arg(p).arg(got).arg(want)));
        }
        QCOMPARE(sketch.percentile(0), 0.0);
        QCOMPARE(sketch.percentile(100), values.back()); // clamped to the largest value seen
    }

    void accumulatorMatchesComputeAndSaysWhenApproximate() {
        std::vector<RequestRecord> records;
        for (int i = 0; i < 400; ++i)
            records.push_back(done(0.01 * (1 + i % 37), 0.5 + 0.01 * i, 10, {0.02, 0.03}));
        const auto exact = LoadSummary::compute(records, 10.0, 8);
        QVERIFY(!exact.contains("percentile_relative_error"));
        LoadAccumulator small({}, 100); // forced past its exact limit
        for (const auto& r : records)
            small.add(r);
        QCOMPARE(small.requests(), 400L);
        const auto approx = small.summary(10.0, 8);
        QCOMPARE(approx["percentile_relative_error"].get<double>(), QuantileSketch::kRelativeError);
        QCOMPARE(approx["completed"], exact["completed"]);
        QCOMPARE(approx["total_output_tokens"], exact["total_output_tokens"]);
        QVERIFY(std::abs(approx["mean_ttft_ms"].get<double>() -
                         exact["mean_ttft_ms"].get<double>()) < 1e-9);
        for (const char* key : {"median_ttft_ms", "p99_ttft_ms", "p90_e2el_ms", "p99_itl_ms"}) {
            const double want = exact[key].get<double>(), got = approx[key].get<double>();
            // Each value repeats about 11 times, so numpy's neighbours are equal and only the
            // bucket's error remains.
            QVERIFY2(std::abs(got - want) <= 1.0001 * QuantileSketch::kRelativeError * want, key);
        }
    }

    // vLLM pools every gap of every request: a request with 3 gaps weighs three times one
    // with 1 gap (the mean of per-request means would say 60 ms here).
    void itlPoolsAllGaps() {
        const auto s = LoadSummary::compute(
            {done(0.1, 0.2, 2, {0.1}), done(0.1, 0.16, 4, {0.02, 0.02, 0.02})}, 1.0, 2);
        QCOMPARE(s["mean_itl_ms"].get<double>(), (100.0 + 3 * 20.0) / 4);
        QCOMPARE(s["median_itl_ms"].get<double>(), 20.0);
    }

    // Without a usage chunk a request's token count is unknown: the totals and every figure
    // derived from them are null, never the number of chunks, never 0.
    void unknownTokenCountsAreNull() {
        auto noUsage = done(0.1, 1.1, 11, {0.1});
        noUsage.outputTokens.reset();
        noUsage.promptTokens.reset();
        LoadSummary::Slo tpotSlo;
        tpotSlo.tpotMs = 500;
        const auto s = LoadSummary::compute({done(0.2, 1.2, 11, {0.1}), noUsage}, 2.0, 2, tpotSlo);
        QCOMPARE(s["completed"].get<long>(), 2L);
        QCOMPARE(s["request_throughput"].get<double>(), 1.0);
        for (const char* key : {"total_input_tokens", "total_output_tokens", "output_throughput",
                                "total_token_throughput", "request_goodput"})
            QVERIFY2(s.at(key).is_null(), key);
        QCOMPARE(s["requests_without_output_tokens"].get<long>(), 1L);
        QCOMPARE(s["requests_without_input_tokens"].get<long>(), 1L);
        QCOMPARE(s["mean_tpot_ms"].get<double>(), 100.0); // from the request that reported
        // Only the input count missing: output figures stand, input and total do not.
        auto noPrompt = done(0.1, 1.1, 11, {0.1});
        noPrompt.promptTokens.reset();
        const auto input = LoadSummary::compute({noPrompt}, 2.0, 1);
        QVERIFY(input["total_input_tokens"].is_null());
        QVERIFY(input["total_token_throughput"].is_null());
        QCOMPARE(input["total_output_tokens"].get<long>(), 11L);
        QCOMPARE(input["output_throughput"].get<double>(), 5.5);
    }

    // No successful request: no latency figure at all (vLLM would print 0.00).
    void allFailedGivesNoLatencyFigures() {
        RequestRecord failed;
        failed.httpStatus = 500;
        failed.error = "HTTP 500";
        const auto s = LoadSummary::compute({failed, failed}, 0.0, 2);
        QCOMPARE(s["failed"].get<long>(), 2L);
        for (const char* metric : {"ttft", "tpot", "itl", "e2el"})
            for (const char* stat : {"mean", "median", "std", "p90", "p99"}) {
                const std::string key = std::string(stat) + "_" + metric + "_ms";
                QVERIFY2(s.at(key).is_null(), key.c_str());
            }
        QVERIFY(s["request_throughput"].is_null()); // no measured span to divide by
    }

    // Past the exact range, a percentile whose two neighbouring ranks fall in different modes
    // is interpolated as numpy does: half the values 1 ms and half 1 s, p50 is 500.5 ms, not
    // one of the modes. The 0.05 % bound holds at every percentile.
    void sketchInterpolatesBetweenModes() {
        for (const int n : {100'000, 100'001, 70'000}) {
            std::vector<double> values;
            QuantileSketch sketch; // the default exact limit, 65,536
            std::mt19937_64 random(3);
            for (int i = 0; i < n; ++i)
                values.push_back(i < n / 2 ? 0.001 : 1.0);
            std::shuffle(values.begin(), values.end(), random);
            for (const double v : values)
                sketch.add(v);
            QVERIFY(!sketch.exact());
            const double boundary = 100.0 * (n / 2 - 1 + 0.3) / (n - 1); // rank 0.3 past it
            for (const double p :
                 {0.0, 1.0, 25.0, 49.99, 50.0, boundary, 50.01, 75.0, 99.0, 100.0}) {
                const double want = LoadSummary::percentile(values, p);
                const double got = sketch.percentile(p);
                QVERIFY2(std::abs(got - want) <= QuantileSketch::kRelativeError * want * 1.000001,
                         qPrintable(QString("n %1 p%2: %3 against numpy's %4")
                                        .arg(n)
                                        .arg(p)
                                        .arg(got)
                                        .arg(want)));
            }
            if (n == 100'000)
                QVERIFY(std::abs(sketch.percentile(50) - 0.5005) < 0.5005 * 0.0005);
        }
    }

    void sloParsing() {
        const auto slo = LoadSummary::parseSlo("ttft:500 tpot:50,e2el:2000");
        QVERIFY(slo && *slo->ttftMs == 500 && *slo->tpotMs == 50 && *slo->e2elMs == 2000);
        QVERIFY(!LoadSummary::parseSlo("ttft=500"));
        QVERIFY(!LoadSummary::parseSlo("latency:5"));
        QVERIFY(!LoadSummary::parseSlo("ttft:fast"));
    }
};

QTEST_GUILESS_MAIN(TestLoadSummary)
#include "tst_loadsummary.moc"
