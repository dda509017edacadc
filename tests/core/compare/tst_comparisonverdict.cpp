#include "core/compare/Comparison.h"
#include "core/compare/ComparisonVerdict.h"
#include "core/compare/Gate.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/stats/TInterval.h"

#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

using namespace tierscope;

namespace {

// A KPI on the ratio scale with geometric means a, b and the 95 % interval [lo, hi] of B/A.
KpiComparison kpi(const std::string& name, double a, double b, std::optional<Interval> ci,
                  bool lowerIsBetter = true) {
    KpiComparison k;
    k.scale = KpiComparison::Scale::Ratio;
    k.name = name;
    k.unit = "s";
    k.lowerIsBetter = lowerIsBetter;
    k.a = a;
    k.b = b;
    k.interval = ci;
    k.countA = k.countB = ci ? 3 : 1;
    return k;
}

std::pair<Gate, Gate::Result> gate(const std::string& text, Gate::Verdict v) {
    std::string error;
    return {*Gate::parse(text, error), {v, ""}};
}

// One side of `runs` measured runs: each run's TTFT (one request) and throughput.
ComparisonSide side(const std::vector<double>& ttft, const std::vector<double>& throughput) {
    ComparisonSide s;
    for (std::size_t i = 0; i < ttft.size(); ++i) {
        RunInfo r;
        r.id = static_cast<std::int64_t>(i) + 1;
        r.workload = "load";
        r.status = "completed";
        r.summaryJson = nlohmann::json{{"output_throughput", throughput[i]}}.dump();
        StoredRequest q;
        q.ttftS = ttft[i];
        q.e2eS = ttft[i] + 1;
        q.ok = true;
        s.runs.push_back(r);
        s.requests.push_back({q});
    }
    return s;
}

const KpiComparison& find(const std::vector<KpiComparison>& kpis, const std::string& name) {
    for (const auto& k : kpis)
        if (k.name == name)
            return k;
    qFatal("no KPI %s", name.c_str());
}

// The bar of `name` in the KPI bar chart: its fill and the figures behind it.
struct Bar {
    std::string fill;
    std::optional<double> value, lo, hi;
};

std::optional<Bar> barOf(const std::string& svg, const std::string& name) {
    const auto at = svg.find("data-name=\"" + name + "\"");
    if (at == std::string::npos)
        return std::nullopt;
    const auto end = svg.find("</g>", at);
    const std::string group = svg.substr(at, end - at);
    Bar b;
    auto attr = [&](const std::string& key) -> std::optional<std::string> {
        const auto i = group.find(key + "=\"");
        if (i == std::string::npos)
            return std::nullopt;
        const auto from = i + key.size() + 2;
        return group.substr(from, group.find('"', from) - from);
    };
    b.fill = attr("fill").value_or("");
    for (auto [key, slot] :
         {std::pair{"data-value", &b.value}, {"data-lo", &b.lo}, {"data-hi", &b.hi}})
        if (const auto v = attr(key))
            *slot = std::stod(*v);
    return b;
}

bool near(double x, double y) {
    return std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(y));
}
} // namespace

class TestComparisonVerdict : public QObject {
    Q_OBJECT
  private slots:
    // The sentence the issue asks for: the headline figures with their intervals, then gates.
    void bIsBetterNamesTheFiguresAndTheGates() {
        ComparisonResult in;
        in.kpis = {kpi("output_throughput", 100, 131, Interval{1.27, 1.36}, false),
                   kpi("ttft_p50", 10, 6.8, Interval{0.65, 0.71}),
                   kpi("e2el_p50", 10, 10.1, Interval{0.95, 1.07})};
        in.gates = {gate("ttft_p50 <= -25%", Gate::Verdict::Pass),
                    gate("output_throughput >= +29%", Gate::Verdict::Inconclusive),
                    gate("model_load_time <= 0.9x", Gate::Verdict::Inconclusive)};
        const auto r = ComparisonVerdict::of(in, {2});
        QCOMPARE(r.sentence, std::string("B is better: TTFT p50 -32.0 % [-35.0 %, -29.0 %], "
                                         "throughput +31.0 % [+27.0 %, +36.0 %]; G1 PASS, "
                                         "G2 UNDECIDED, G3 n/a"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Better);
    }

    // A +2.1 % whose interval spans zero is no difference, not a regression.
    void anIntervalSpanningZeroIsNoDifference() {
        ComparisonResult in;
        in.kpis = {kpi("ttft_p50", 1.0, 1.021, Interval{0.99, 1.05})};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::NoDifference);
        const auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence,
                 std::string("No significant difference in TTFT p50 +2.1 % [-1.0 %, +5.0 %]"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoDifference);
        in.kpis[0].interval = Interval{1.01, 1.03};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::Worse);
        QCOMPARE(ComparisonVerdict::of(in).sentence,
                 std::string("A is better (B is worse): TTFT p50 +2.1 % [+1.0 %, +3.0 %]"));
    }

    void oneRunASideHasNoInterval() {
        ComparisonResult in;
        in.kpis = {kpi("ttft_p50", 1.0, 0.5, std::nullopt)};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::NoInterval);
        const auto r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.starts_with("No interval yet"), r.sentence.c_str());
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoInterval);
    }

    // The headline judges the outcome figures only: the gates' KPIs, the first being the
    // primary that names a side. A secondary outcome alone names none, and every other KPI
    // that changed is counted, not listed.
    void theHeadlineJudgesTheOutcomesAndCountsTheRest() {
        ComparisonResult in;
        in.kpis = {kpi("ttft_p50", 10, 9.9, Interval{0.95, 1.04}),
                   kpi("output_throughput", 100, 131, Interval{1.27, 1.36}, false),
                   kpi("e2el_p50", 10, 7, Interval{0.6, 0.8}),
                   kpi("itl_mean", 10, 12, Interval{1.1, 1.3})};
        auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence,
                 std::string("No significant difference in TTFT p50 -1.0 % [-5.0 %, +4.0 %]; "
                             "throughput +31.0 % [+27.0 %, +36.0 %] (B better, not the primary "
                             "figure); 2 other figures changed (see the table)"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoDifference);
        // A gate makes its KPI the primary: the throughput now names the side.
        in.gates = {gate("output_throughput >= +20%", Gate::Verdict::Pass)};
        const auto judged = ComparisonVerdict::outcomes(in);
        QCOMPARE(judged.size(), std::size_t(1));
        QCOMPARE(judged.front()->name, std::string("output_throughput"));
        r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence, std::string("B is better: throughput +31.0 % [+27.0 %, +36.0 %]; 2 "
                                         "other figures changed (see the table); G1 PASS"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Better);
        // The primary better, a secondary without a difference: both stated.
        in.gates.clear();
        in.kpis[0].interval = Interval{0.9, 0.95};
        r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.starts_with("B is better: TTFT p50 -1.0 % [-10.0 %, -5.0 %]"),
                 r.sentence.c_str());
        in.kpis[1].interval = Interval{0.98, 1.6};
        r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.find("; no significant difference in throughput +31.0 % [-2.0 %, "
                                 "+60.0 %]") != std::string::npos,
                 r.sentence.c_str());
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Better);
    }

    // A/A with run-to-run variance: 1,000 comparisons of 3 runs a side drawn from one
    // distribution. Each KPI's interval shows a side in about 5 % of them, and with TTFT,
    // throughput and the figures derived from them, some KPI does so far more often; the
    // headline, judged on its primary figure, names a side in about 5 %.
    void anAaComparisonNamesASideInOneInTwenty() {
        std::mt19937 random(20261202);
        std::normal_distribution<double> runEffect(0.0, 0.1);
        auto draw = [&](double median) {
            std::vector<double> v;
            for (int i = 0; i < 3; ++i)
                v.push_back(median * std::exp(runEffect(random)));
            return v;
        };
        int named = 0, anyKpi = 0;
        const int trials = 1000;
        for (int t = 0; t < trials; ++t) {
            ComparisonResult in;
            const auto ttftA = draw(0.3), ttftB = draw(0.3);
            in.kpis = Comparison::compare(side(ttftA, draw(1000)), side(ttftB, draw(1000)));
            const auto r = ComparisonVerdict::of(in);
            named += r.tone == ComparisonVerdict::Tone::Better ||
                     r.tone == ComparisonVerdict::Tone::Worse;
            anyKpi += std::any_of(in.kpis.begin(), in.kpis.end(), [](const auto& k) {
                const auto v = k.verdict();
                return v == KpiComparison::Verdict::BetterA || v == KpiComparison::Verdict::BetterB;
            });
        }
        qInfo("A/A, %d comparisons: the headline names a side in %.1f %%; some KPI shows one in "
              "%.1f %%",
              trials, 100.0 * named / trials, 100.0 * anyKpi / trials);
        // 5 % of 1,000 is 50 +- 7 (one standard deviation): the bound leaves two.
        QVERIFY2(named <= 64, qPrintable(QString::number(named)));
        QVERIFY2(named >= 36, qPrintable(QString::number(named)));
        QVERIFY2(anyKpi > named + 20, qPrintable(QString::number(anyKpi)));
    }

    void aFailedCheckIsInvalidAndJudgesNoGate() {
        ComparisonResult in;
        in.kpis = {kpi("ttft_p50", 10, 6.8, Interval{0.65, 0.71})};
        in.gates = {gate("ttft_p50 <= -25%", Gate::Verdict::Inconclusive)};
        in.invalid = {"B: run 9: engine_identity fail: same engine as arm A"};
        const auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence, std::string("INVALID, gates not judged: B: run 9: engine_identity "
                                         "fail: same engine as arm A"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Invalid);
    }

    void bothSidesBetterSomewhereIsMixedAndAFailedGateIsRed() {
        ComparisonResult in;
        in.kpis = {kpi("ttft_p50", 10, 6.8, Interval{0.65, 0.71}),
                   kpi("output_throughput", 100, 90, Interval{0.88, 0.92}, false)};
        QCOMPARE(ComparisonVerdict::of(in).sentence,
                 std::string("Mixed: B is better on TTFT p50 -32.0 % [-35.0 %, -29.0 %]; A is "
                             "better on throughput -10.0 % [-12.0 %, -8.0 %]"));
        in.kpis.pop_back();
        in.gates = {gate("ttft_p50 <= -50%", Gate::Verdict::Fail)};
        const auto r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.ends_with("; G1 FAIL"), r.sentence.c_str());
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Worse);
    }

    // A bottleneck share rising for the faster arm is a change, not a regression: the view
    // colours it by significance alone, and the headline never calls it better or worse.
    void aTimeShareHasNoDirection() {
        ComparisonSide a, b;
        for (auto* side : {&a, &b})
            for (int i = 0; i < 3; ++i) {
                RunInfo r;
                r.id = i + 1;
                r.status = "completed";
                r.summaryJson = "{}";
                side->runs.push_back(r);
                side->requests.emplace_back();
                RunTimeline t;
                const double storage = side == &a ? 0.2 + 0.01 * i : 0.6 + 0.01 * i;
                t.shares = {{BottleneckClassifier::Class::StorageBound, storage},
                            {BottleneckClassifier::Class::Idle, 1 - storage}};
                side->timelines.push_back(t);
            }
        const auto kpis = Comparison::compare(a, b);
        const auto storage = std::find_if(kpis.begin(), kpis.end(), [](const auto& k) {
            return k.name == "storage_bound_share";
        });
        QVERIFY(storage != kpis.end());
        QVERIFY(!storage->directional);
        QCOMPARE(storage->verdict(), KpiComparison::Verdict::Changed);
        QCOMPARE(ComparisonVerdict::tone(*storage), ComparisonVerdict::Tone::Changed);
        ComparisonResult in;
        in.kpis = kpis;
        const auto r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.starts_with("No figure of merit was measured on both sides; 2 other "
                                        "figures changed (see the table)"),
                 r.sentence.c_str());
        // In points, with the interval of B - A: a share is compared as a difference.
        QCOMPARE(storage->scale, KpiComparison::Scale::Difference);
        QCOMPARE(ComparisonVerdict::change(*storage).substr(0, 10), std::string("+40.0 pts "));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoDifference);
    }

    // shm against disk: the faster arm reads nothing from disk. Its lower disk bandwidth is a
    // change, not a loss, so the banner says B is better, not "Mixed"; on a storage workload,
    // whose output is bandwidth, it has a direction.
    void deviceBandwidthIsAChangeNotAMerit() {
        auto arm = [](const std::string& workload, std::vector<double> ttft,
                      std::vector<double> peak) {
            auto s = side(ttft, std::vector<double>(ttft.size(), 1000));
            for (std::size_t i = 0; i < s.runs.size(); ++i) {
                s.runs[i].workload = workload;
                s.runs[i].summaryJson =
                    nlohmann::json{{"output_throughput", 1000}, {"read_gb_per_s", peak[i]}}.dump();
                RunTimeline t;
                t.readPeakGBps = peak[i];
                s.timelines.push_back(t);
            }
            return s;
        };
        const auto kpis =
            Comparison::compare(arm("load", {0.30, 0.31, 0.29}, {1.2, 1.3, 1.1}),
                                arm("load", {0.18, 0.19, 0.17}, {0.01, 0.012, 0.011}));
        for (const char* name : {"read_gb_per_s", "read_gb_per_s_peak"}) {
            const auto& k = find(kpis, name);
            QVERIFY(!k.directional);
            QCOMPARE(k.verdict(), KpiComparison::Verdict::Changed);
        }
        ComparisonResult in;
        in.kpis = kpis;
        const auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Better);
        QVERIFY2(r.sentence.starts_with("B is better: TTFT p50 -40.0 % ["), r.sentence.c_str());
        // The device figures changed and are counted, never called better or worse.
        QVERIFY2(r.sentence.find("other figures changed (see the table)") != std::string::npos,
                 r.sentence.c_str());
        QVERIFY2(r.sentence.find("read GB/s") == std::string::npos, r.sentence.c_str());
        const auto storage =
            Comparison::compare(arm("storage/model-load", {0.3, 0.31, 0.29}, {1.2, 1.3, 1.1}),
                                arm("storage/model-load", {0.3, 0.31, 0.29}, {2.2, 2.3, 2.1}));
        // A sampled zero is a measurement: the arm that read in one run of three is not
        // averaged over that one run.
        const auto zeros = Comparison::compare(arm("load", {0.3, 0.31, 0.29}, {0, 0, 0.9}),
                                               arm("load", {0.3, 0.31, 0.29}, {1.2, 1.3, 1.1}));
        QCOMPARE(find(zeros, "read_gb_per_s_peak").runsA, (std::vector<double>{0, 0, 0.9}));
        QCOMPARE(find(zeros, "read_gb_per_s_peak").scale, KpiComparison::Scale::Difference);
        QVERIFY(find(storage, "read_gb_per_s").directional);
        QCOMPARE(find(storage, "read_gb_per_s").verdict(), KpiComparison::Verdict::BetterB);
    }

    // Under a rate, tierscope times TTFT from the scheduled send and vLLM's client from the
    // actual send: a comparison holding both reads every run from the actual send.
    void openLoopRunsOfBothClientsCompareLikeWithLike() {
        ComparisonSide ours, vllm;
        for (int i = 0; i < 3; ++i) {
            RunInfo r;
            r.id = i + 1;
            r.workload = "load";
            r.status = "completed";
            r.paramsJson = R"({"rate": 4})";
            r.summaryJson = "{}";
            StoredRequest q;
            q.ok = true;
            q.ttftS = std::vector{0.100, 0.101, 0.102}[static_cast<std::size_t>(i)];
            q.sendNs = 2'000'000'000;
            q.scheduledNs = 1'500'000'000; // sent 500 ms late: the client's own queueing
            ours.runs.push_back(r);
            ours.requests.push_back({q});
            RunInfo v;
            v.id = i + 4;
            v.workload = "vllm-bench";
            v.status = "imported";
            v.paramsJson = R"({"request_rate": 4})";
            v.summaryJson =
                nlohmann::json{{"completed", 10}, {"failed", 0}, {"median_ttft_ms", 100.0 + i}}
                    .dump();
            vllm.runs.push_back(v);
            vllm.requests.emplace_back();
        }
        const auto alone = Comparison::compare(ours, ours);
        QVERIFY(std::abs(find(alone, "ttft_p50").runsA[0] - 0.6) < 1e-9); // scheduled send
        const auto mixed = Comparison::compare(ours, vllm);
        const auto& k = find(mixed, "ttft_p50");
        QCOMPARE(k.runsA, (std::vector<double>{0.100, 0.101, 0.102}));
        QCOMPARE(k.runsB, (std::vector<double>{0.100, 0.101, 0.102}));
        QVERIFY2(k.note.find("actual send") != std::string::npos, k.note.c_str());
        QCOMPARE(k.verdict(), KpiComparison::Verdict::NoSignificantDifference);
    }

    // The issue's first case: the table said "no significant difference" while the gate
    // "ttft_p50 <= -3%" passed. One interval: both say B.
    void theTableAndTheGateReadOneInterval() {
        const auto kpis = Comparison::compare(side({0.1051, 0.1909, 0.1358}, {1, 1, 1}),
                                              side({0.0671, 0.0634, 0.0908}, {1, 1, 1}));
        const auto& k = find(kpis, "ttft_p50");
        QCOMPARE(k.scale, KpiComparison::Scale::Ratio);
        std::string error;
        const auto g = *Gate::parse("ttft_p50 <= -3%", error);
        QCOMPARE(g.judge(k).verdict, Gate::Verdict::Pass);
        QCOMPARE(k.verdict(), KpiComparison::Verdict::BetterB);
        // B/A of geometric means and Welch on the logs, computed here from the run values.
        const auto logs = TInterval::welch({std::log(0.1051), std::log(0.1909), std::log(0.1358)},
                                           {std::log(0.0671), std::log(0.0634), std::log(0.0908)});
        QVERIFY(logs);
        QVERIFY(near(k.interval->lo, std::exp(logs->interval.lo)));
        QVERIFY(near(k.interval->hi, std::exp(logs->interval.hi)));
        QVERIFY(near(k.ratio(), std::exp(logs->estimate)));
        const std::string cell = ComparisonReport::intervalCell(k);
        QVERIFY2(g.judge(k).reason.find(cell.substr(1, cell.size() - 2)) != std::string::npos,
                 (g.judge(k).reason + " vs " + cell).c_str());
    }

    // The issue's second case: a difference interval over A gave "-94 % [-107 %, -82 %]".
    void aPositiveQuantityNeverFallsBelowMinus100Percent() {
        const auto kpis = Comparison::compare(side({0.200, 0.210, 0.190}, {1, 1, 1}),
                                              side({0.010, 0.012, 0.011}, {1, 1, 1}));
        const auto& k = find(kpis, "ttft_p50");
        const auto r = k.relativeInterval();
        QVERIFY(r && r->lo > -1 && r->hi < 0);
        ComparisonResult in;
        in.kpis = kpis;
        const auto sentence = ComparisonVerdict::of(in).sentence;
        QVERIFY2(sentence.find("TTFT p50 -94.5 % [-95.4 %, -93.4 %]") != std::string::npos,
                 sentence.c_str());
        QCOMPARE(ComparisonReport::intervalCell(k), std::string("[-95.4 %, -93.4 %]"));
    }

    // Every view of every KPI states the same verdict and the same interval, over 1,000 random
    // comparisons: 2-5 runs a side, run-to-run spreads from 1 % to 60 %, true changes from
    // none to tenfold, and now and then a run that measured zero (the difference scale).
    void everyViewStatesTheSameVerdictAndInterval() {
        std::mt19937_64 random(20261202);
        std::uniform_int_distribution<int> runs(2, 5);
        std::uniform_real_distribution<double> spread(0.01, 0.6), change(-2.3, 2.3), u(0, 1);
        std::normal_distribution<double> normal(0, 1);
        std::map<std::string, int> seen;
        for (int trial = 0; trial < 1000; ++trial) {
            std::vector<double> ttftA, ttftB, tputA, tputB;
            const double sd = spread(random);
            // Half the trials compare equal arms; the others a true change of up to 10x.
            const double shift = u(random) < 0.5 ? 0.0 : change(random);
            for (auto [values, n, offset] :
                 {std::tuple{&ttftA, runs(random), 0.0}, {&ttftB, runs(random), shift}})
                for (int i = 0; i < n; ++i)
                    values->push_back(0.2 * std::exp(offset + sd * normal(random)));
            for (auto [values, n, offset] :
                 {std::tuple{&tputA, ttftA.size(), 0.0}, {&tputB, ttftB.size(), -shift}})
                for (std::size_t i = 0; i < n; ++i)
                    values->push_back(
                        u(random) < 0.03 ? 0.0 : 900 * std::exp(offset + sd * normal(random)));
            ComparisonResult in;
            in.labelA = "A";
            in.labelB = "B";
            in.kpis = Comparison::compare(side(ttftA, tputA), side(ttftB, tputB));
            std::string error;
            for (const char* text : {"ttft_p50 <= 0%", "output_throughput >= 0%"}) {
                const auto g = *Gate::parse(text, error);
                in.gates.emplace_back(g, g.judge(find(in.kpis, g.kpi)));
            }
            const auto json = nlohmann::json::parse(ComparisonReport::json(in));
            const std::string table = ComparisonReport::text(in);
            const std::string bars =
                ComparisonCharts::render(ComparisonCharts::Kind::KpiBars, {}, {}, in.kpis);
            const std::string headline = ComparisonVerdict::of(in).sentence;
            for (std::size_t i = 0; i < in.kpis.size(); ++i)
                checkOneKpi(in, i, json["kpis"][i], table, bars, headline, seen);
            if (QTest::currentTestFailed())
                QFAIL(qPrintable(QString("trial %1").arg(trial)));
        }
        // Both scales and every verdict were exercised.
        for (const char* what : {"ratio B", "ratio A", "ratio none", "difference"})
            QVERIFY2(seen[what] > 20, what);
    }

  private:
    void checkOneKpi(const ComparisonResult& in, std::size_t i, const nlohmann::json& j,
                     const std::string& table, const std::string& bars, const std::string& headline,
                     std::map<std::string, int>& seen) {
        const auto& k = in.kpis[i];
        const auto verdict = KpiComparison::verdictText(k.verdict());
        const auto r = k.relativeInterval();
        const bool ratio = k.scale == KpiComparison::Scale::Ratio;
        ++seen[ratio ? std::string("ratio ") + (k.verdict() == KpiComparison::Verdict::BetterB ? "B"
                                                : k.verdict() == KpiComparison::Verdict::BetterA
                                                    ? "A"
                                                    : "none")
                     : "difference"];
        // The ratio scale is the logs' Welch interval of the run values, recomputed here.
        if (ratio) {
            QVERIFY(k.interval && r);
            std::vector<double> la, lb;
            for (const double v : k.runsA)
                la.push_back(std::log(v));
            for (const double v : k.runsB)
                lb.push_back(std::log(v));
            const auto logs = TInterval::welch(la, lb);
            QVERIFY(near(k.interval->lo, std::exp(logs->interval.lo)));
            QVERIFY(near(k.interval->hi, std::exp(logs->interval.hi)));
            QVERIFY(r->lo > -1.0);
            QVERIFY(near(k.ratio(), std::exp(logs->estimate)));
        }
        // JSON: the same verdict and interval.
        QCOMPARE(j["verdict"].get<std::string>(), std::string(verdict));
        QCOMPARE(j["scale"].get<std::string>(), std::string(ratio ? "ratio" : "difference"));
        if (r) {
            QVERIFY(near(j["ci95_change"][0].get<double>(), r->lo));
            QVERIFY(near(j["ci95_change"][1].get<double>(), r->hi));
        } else if (k.interval) {
            QVERIFY(near(j["ci95_difference"][0].get<double>(), k.interval->lo));
        }
        // The table: the row carries the interval cell and the verdict.
        const std::regex row("(^|\n)" + k.name + " [^\n]*");
        std::smatch m;
        QVERIFY(std::regex_search(table, m, row));
        const std::string line = m.str();
        QVERIFY2(line.find(ComparisonReport::intervalCell(k)) != std::string::npos, line.c_str());
        QVERIFY2(line.find(std::string(verdict) + " (") != std::string::npos, line.c_str());
        // The bar: its colour is the verdict, its whisker the interval.
        if (const auto bar = barOf(bars, k.name)) {
            const char* fill = k.verdict() == KpiComparison::Verdict::BetterB   ? "#2ca02c"
                               : k.verdict() == KpiComparison::Verdict::BetterA ? "#d62728"
                               : k.verdict() == KpiComparison::Verdict::Changed ? "#1f77b4"
                                                                                : "#999999";
            QCOMPARE(bar->fill, std::string(fill));
            QVERIFY(bar->value && near(*bar->value, k.relative() * 100));
            QCOMPARE(bool(bar->lo), bool(r));
            if (r)
                QVERIFY(near(*bar->lo, r->lo * 100) && near(*bar->hi, r->hi * 100));
        } else {
            QCOMPARE(k.a, 0.0); // only a KPI with no relative change has no bar
        }
        // A "no worse than A" gate passes exactly when B is better, fails when A is.
        for (const auto& [gate, result] : in.gates) {
            if (gate.kpi != k.name)
                continue;
            const auto expected =
                !ratio                                           ? Gate::Verdict::Inconclusive
                : k.verdict() == KpiComparison::Verdict::BetterB ? Gate::Verdict::Pass
                : k.verdict() == KpiComparison::Verdict::BetterA ? Gate::Verdict::Fail
                                                                 : Gate::Verdict::Inconclusive;
            QCOMPARE(result.verdict, expected);
        }
        // The headline: a figure it names carries the same change and interval, on the side
        // its verdict says.
        const std::string name = ComparisonVerdict::displayName(k.name) + " ";
        for (auto at = headline.find(name); at != std::string::npos;
             at = headline.find(name, at + 1)) {
            if (at > 0 && headline[at - 1] != ' ')
                continue;
            const std::string rest = headline.substr(at + name.size());
            const std::string change = ComparisonVerdict::change(k);
            QVERIFY2(rest.starts_with(change), headline.c_str());
            // Its side: the clause it stands in ("B is better: ...", "A is better on ...",
            // "no significant difference in ..."), or the note after a secondary figure.
            const auto semicolon = headline.rfind("; ", at);
            const std::string clause =
                headline.substr(semicolon == std::string::npos ? 0 : semicolon + 2,
                                at - (semicolon == std::string::npos ? 0 : semicolon + 2));
            const std::string note = rest.substr(change.size());
            const char side = clause.find("A is better") != std::string::npos   ? 'A'
                              : clause.find("B is better") != std::string::npos ? 'B'
                              : note.starts_with(" (A better")                  ? 'A'
                              : note.starts_with(" (B better")                  ? 'B'
                                                                                : '-';
            QVERIFY2((side == 'A') == (k.verdict() == KpiComparison::Verdict::BetterA),
                     headline.c_str());
            QVERIFY2((side == 'B') == (k.verdict() == KpiComparison::Verdict::BetterB),
                     headline.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestComparisonVerdict)
#include "tst_comparisonverdict.moc"
