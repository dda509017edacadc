#include "core/stats/LoadSummary.h"
#include "core/view/RunRequestSummary.h"

#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

RunInfo run(std::int64_t id, const std::string& arm, const std::string& status,
            const std::string& params = "{}") {
    RunInfo r;
    r.id = id;
    r.arm = arm;
    r.workload = "load";
    r.status = status;
    r.paramsJson = params;
    r.repetition = static_cast<int>(id);
    r.startNs = 100 * kSecond;
    r.endNs = 200 * kSecond;
    return r;
}

StoredRequest request(std::int64_t sendNs, std::optional<double> ttft, bool ok = true,
                      std::optional<std::int64_t> scheduledNs = std::nullopt) {
    StoredRequest r;
    r.sendNs = sendNs;
    r.ttftS = ttft;
    r.ok = ok;
    r.scheduledNs = scheduledNs;
    r.e2eS = ttft ? std::optional<double>(*ttft + 1) : std::nullopt;
    r.outputTokens = 10;
    return r;
}

} // namespace

class TestRunRequestSummary : public QObject {
    Q_OBJECT
  private slots:
    // The empirical CDF: one step per distinct value, ties in one step, the last at 1.
    void cdfSteps() {
        const auto c = RunRequestSummary::cdf({1, 2, 2, 3});
        QCOMPARE(c.size(), std::size_t(3));
        QCOMPARE(c[0], std::make_pair(1.0, 0.25));
        QCOMPARE(c[1], std::make_pair(2.0, 0.75));
        QCOMPARE(c[2], std::make_pair(3.0, 1.0));
        QVERIFY(RunRequestSummary::cdf({}).empty());
    }

    // A closed-loop run: its TTFTs ascending, failed requests left out of the CDF but counted
    // in its failure rate, and its p50 the one `compare` uses (linear interpolation).
    void closedLoopRow() {
        const std::int64_t start = 100 * kSecond;
        const auto rows = RunRequestSummary::of(
            {{run(1, "A", "completed"),
              {request(start + 3 * kSecond, 0.3), request(start + 1 * kSecond, 0.1),
               request(start + 2 * kSecond, 0.2), request(start + 4 * kSecond, 0.9, false)}},
             {run(2, "B", "completed"), {}}});
        QCOMPARE(rows.size(), std::size_t(1)); // run 2 sent nothing: no row
        const auto& r = rows[0];
        QCOMPARE(r.group, std::string("A"));
        QVERIFY(r.measurement);
        QCOMPARE(r.ttftS, (std::vector<double>{0.1, 0.2, 0.3}));
        QCOMPARE(r.kpis.at("ttft_p50"), LoadSummary::percentile({0.1, 0.2, 0.3}, 50));
        QCOMPARE(r.kpis.at("failure_rate"), 25.0);
        QCOMPARE(r.ttftOverRunS.size(), std::size_t(3));
        QCOMPARE(r.ttftOverRunS[0], std::make_pair(1.0, 0.1));
        QCOMPARE(r.ttftOverRunS[2], std::make_pair(3.0, 0.3));
    }

    // Under an open-loop rate a request's TTFT counts from its scheduled send, and the overlay
    // plots it there: a request sent 0.5 s late waited 0.5 s more. A warm-up run has a row
    // (its requests were sent) but is no measurement.
    void openLoopCountsFromTheSchedule() {
        const std::int64_t start = 100 * kSecond;
        const auto rows = RunRequestSummary::of(
            {{run(3, "B", "completed", R"({"rate": 4})"),
              {request(start + 1 * kSecond + kSecond / 2, 0.2, true, start + 1 * kSecond)}},
             {run(4, "B", "warmup"), {request(start, 0.4)}}});
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[0].ttftS, std::vector<double>{0.7});
        QCOMPARE(rows[0].ttftOverRunS[0], std::make_pair(1.0, 0.7));
        QCOMPARE(rows[0].kpis.at("ttft_p50"), 0.7);
        QVERIFY(!rows[1].measurement);
    }

    // A run whose requests all failed has a row, with its failure rate, and no TTFT at all:
    // absent, not zero.
    void allFailedHasNoTtft() {
        const auto rows =
            RunRequestSummary::of({{run(5, "A", "completed"), {request(0, std::nullopt, false)}}});
        QCOMPARE(rows.size(), std::size_t(1));
        QVERIFY(rows[0].ttftS.empty());
        QVERIFY(rows[0].kpis.count("ttft_p50") == 0);
        QCOMPARE(rows[0].kpis.at("failure_rate"), 100.0);
    }
};

QTEST_GUILESS_MAIN(TestRunRequestSummary)
#include "tst_runrequestsummary.moc"
