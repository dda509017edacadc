#include "core/compare/Comparison.h"
#include "core/report/ComparisonVerdict.h"
#include "core/compare/Gate.h"

#include <QtTest>

using namespace tierscope;

namespace {

// A KPI with means a, b and the 95 % interval [lo, hi] of B - A.
KpiComparison kpi(const std::string& name, double a, double b, std::optional<Interval> ci,
                  bool lowerIsBetter = true) {
    KpiComparison k;
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

} // namespace

class TestComparisonVerdict : public QObject {
    Q_OBJECT
  private slots:
    // The sentence the issue asks for: the headline figures with their intervals, then gates.
    void bIsBetterNamesTheFiguresAndTheGates() {
        ComparisonReport::Input in;
        in.kpis = {kpi("output_throughput", 100, 131, Interval{27, 36}, false),
                   kpi("ttft_p50", 10, 6.8, Interval{-3.5, -2.9}),
                   kpi("e2el_p50", 10, 10.1, Interval{-0.5, 0.7})};
        in.gates = {gate("ttft_p50 <= -25%", Gate::Verdict::Pass),
                    gate("output_throughput >= +29%", Gate::Verdict::Inconclusive),
                    gate("model_load_time <= 0.9x", Gate::Verdict::Inconclusive)};
        const auto r = ComparisonVerdict::of(in, {2});
        QCOMPARE(r.sentence, std::string("B is better: TTFT p50 -32 % [-35 %, -29 %], "
                                         "throughput +31 % [+27 %, +36 %]; G1 PASS, "
                                         "G2 INCONCLUSIVE, G3 n/a"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Better);
    }

    // A +2.1 % whose interval spans zero is no difference, not a regression.
    void anIntervalSpanningZeroIsNoDifference() {
        ComparisonReport::Input in;
        in.kpis = {kpi("ttft_p50", 1.0, 1.021, Interval{-0.01, 0.05})};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::NoDifference);
        const auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence, std::string("No significant difference"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoDifference);
        in.kpis[0].interval = Interval{0.01, 0.03};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::Worse);
        QCOMPARE(ComparisonVerdict::of(in).sentence,
                 std::string("A is better (B is worse): TTFT p50 +2.1 % [+1.0 %, +3.0 %]"));
    }

    void oneRunASideHasNoInterval() {
        ComparisonReport::Input in;
        in.kpis = {kpi("ttft_p50", 1.0, 0.5, std::nullopt)};
        QCOMPARE(ComparisonVerdict::tone(in.kpis[0]), ComparisonVerdict::Tone::NoInterval);
        const auto r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.starts_with("No interval yet"), r.sentence.c_str());
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoInterval);
    }

    void aFailedCheckIsInvalidAndJudgesNoGate() {
        ComparisonReport::Input in;
        in.kpis = {kpi("ttft_p50", 10, 6.8, Interval{-3.5, -2.9})};
        in.gates = {gate("ttft_p50 <= -25%", Gate::Verdict::Inconclusive)};
        in.invalid = {"B: run 9: engine_identity fail: same engine as arm A"};
        const auto r = ComparisonVerdict::of(in);
        QCOMPARE(r.sentence, std::string("INVALID, gates not judged: B: run 9: engine_identity "
                                         "fail: same engine as arm A"));
        QCOMPARE(r.tone, ComparisonVerdict::Tone::Invalid);
    }

    void bothSidesBetterSomewhereIsMixedAndAFailedGateIsRed() {
        ComparisonReport::Input in;
        in.kpis = {kpi("ttft_p50", 10, 6.8, Interval{-3.5, -2.9}),
                   kpi("output_throughput", 100, 90, Interval{-12, -8}, false)};
        QCOMPARE(ComparisonVerdict::of(in).sentence,
                 std::string("Mixed: B is better on TTFT p50 -32 % [-35 %, -29 %]; A is better "
                             "on throughput -10 % [-12 %, -8.0 %]"));
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
        ComparisonReport::Input in;
        in.kpis = kpis;
        const auto r = ComparisonVerdict::of(in);
        QVERIFY2(r.sentence.starts_with("No significant difference in any figure of merit; time "
                                        "shares moved: "),
                 r.sentence.c_str());
        QCOMPARE(r.tone, ComparisonVerdict::Tone::NoDifference);
    }
};

QTEST_GUILESS_MAIN(TestComparisonVerdict)
#include "tst_comparisonverdict.moc"
