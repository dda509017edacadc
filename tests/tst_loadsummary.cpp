#include "TestSupport.h"
#include "core/LoadSummary.h"

#include <cmath>

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
