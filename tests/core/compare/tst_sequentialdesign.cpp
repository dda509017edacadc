#include "core/compare/Comparison.h"
#include "core/compare/Gate.h"
#include "core/compare/SequentialDesign.h"
#include "core/compare/SequentialLook.h"
#include "core/stats/GatePower.h"
#include "experiments/RunSchedule.h"

#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

using namespace tierscope;

// repetitions = "auto" through the code the runner decides with: after each block of two
// repetitions, the runs so far go through Comparison::compare (at the design's per-look level,
// which the runs' params carry), Gate::judge and SequentialLook::of, and the experiment stops
// once every gate is decided. Seeded, so the figures below are the same on every machine;
// docs/guide/experiments.md quotes them.
namespace {

constexpr double kBase = 1000.0; // A's output throughput, tok/s

struct Design {
    double cv;    // run-to-run
    double truth; // B/A - 1
    int maxRepetitions;
    bool sequentialLevel = true; // false: every look at 95 %, the naive rule
};

RunInfo run(int id, double value, int looks) {
    RunInfo r;
    r.id = id;
    r.workload = "load";
    r.status = "completed";
    r.summaryJson = nlohmann::json{{"output_throughput", value}}.dump();
    if (looks > 0)
        r.paramsJson = nlohmann::json{{SequentialDesign::kParam, looks}}.dump();
    return r;
}

struct Outcome {
    int passed = 0, failed = 0, undecided = 0, trials = 0;
    double repetitions = 0; // summed over trials
    double share(int n) const { return n / static_cast<double>(trials); }
};

Outcome simulate(const Design& d, const std::string& gateText, int trials, std::uint64_t seed) {
    std::string error;
    const Gate gate = *Gate::parse(gateText, error);
    const int looks = d.sequentialLevel ? SequentialDesign::looksFor(d.maxRepetitions) : 0;
    const double sigma = GatePower::sigmaOfCv(d.cv);
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0.0, sigma);
    Outcome out;
    out.trials = trials;
    for (int t = 0; t < trials; ++t) {
        ComparisonSide a, b;
        int reps = 0;
        Gate::Verdict verdict = Gate::Verdict::Inconclusive;
        while (reps < d.maxRepetitions) {
            const int block = std::min(SequentialDesign::kBlock, d.maxRepetitions - reps);
            for (int i = 0; i < block; ++i) {
                a.runs.push_back(run(reps + i + 1, kBase * std::exp(normal(random)), looks));
                b.runs.push_back(
                    run(reps + i + 1, kBase * (1 + d.truth) * std::exp(normal(random)), looks));
            }
            reps += block;
            ComparisonResult in;
            in.kpis = Comparison::compare(a, b);
            for (const auto& k : in.kpis)
                if (k.name == gate.kpi)
                    in.gates.emplace_back(gate, gate.judge(k));
            const auto look = SequentialLook::of({in});
            verdict = look.gates.front().verdict;
            if (look.decided)
                break;
        }
        out.passed += verdict == Gate::Verdict::Pass;
        out.failed += verdict == Gate::Verdict::Fail;
        out.undecided += verdict == Gate::Verdict::Inconclusive;
        out.repetitions += reps;
    }
    return out;
}

QString describe(const Design& d, const Outcome& o) {
    return QString("CV %1 %, truth %2 %, at most %3 repetitions%4: pass %5 %, fail %6 %, "
                   "undecided %7 %, %8 repetitions on average")
        .arg(d.cv * 100)
        .arg(d.truth * 100)
        .arg(d.maxRepetitions)
        .arg(d.sequentialLevel ? "" : " (every look at 95 %)")
        .arg(o.share(o.passed) * 100, 0, 'f', 2)
        .arg(o.share(o.failed) * 100, 0, 'f', 2)
        .arg(o.share(o.undecided) * 100, 0, 'f', 2)
        .arg(o.repetitions / o.trials, 0, 'f', 2);
}

} // namespace

class TestSequentialDesign : public QObject {
    Q_OBJECT
  private slots:
    void looksAndLevels() {
        QCOMPARE(SequentialDesign::looksFor(20), 10);
        QCOMPARE(SequentialDesign::looksFor(5), 3); // 2, 4, 5
        QCOMPARE(SequentialDesign::looksFor(2), 1);
        QCOMPARE(SequentialDesign{10}.confidence(), 0.995);
        QCOMPARE(SequentialDesign{1}.confidence(), 0.95);
        // The runs carry it; the largest design among them wins, malformed params are ignored.
        std::vector<RunInfo> runs = {run(1, 1, 3), run(2, 1, 0), run(3, 1, 5)};
        runs.push_back(run(4, 1, 0));
        runs.back().paramsJson = "{\"sequential_looks\": \"ten\"}";
        runs.push_back(run(5, 1, 0));
        runs.back().paramsJson = "not json";
        QCOMPARE(SequentialDesign::ofRuns(runs)->looks, 5);
        QVERIFY(!SequentialDesign::ofRuns({run(1, 1, 0)}));
    }

    // A block continues the plan's order: ABBA alternates with the repetition's parity.
    void blocksContinueTheOrder() {
        ExperimentPlan plan;
        plan.arms.resize(2);
        plan.workloads.push_back({"load", {}, {}, {}});
        const auto first = RunSchedule::block(plan, 1, 2), next = RunSchedule::block(plan, 3, 2);
        const std::vector<std::size_t> abba = {0, 1, 1, 0};
        for (std::size_t i = 0; i < 4; ++i) {
            QCOMPARE(first[i].arm, abba[i]);
            QCOMPARE(next[i].arm, abba[i]);
        }
        QCOMPARE(next.front().repetition, 3);
        QCOMPARE(next.back().repetition, 4);
        QVERIFY(!next.front().warmup);
    }

    // The gate's false-pass rate with the truth on its threshold stays <= 2.5 % however often
    // the experiment looks, at 1,000 trials per design; looking as often at 95 % does not.
    void falsePassAtTheTruthStaysWithinTheBound_data() {
        QTest::addColumn<double>("cv");
        QTest::addColumn<int>("maxRepetitions");
        QTest::addRow("CV 5 %%, 20 repetitions") << 0.05 << 20;
        QTest::addRow("CV 20 %%, 8 repetitions") << 0.20 << 8;
        QTest::addRow("CV 10 %%, 5 repetitions") << 0.10 << 5;
    }
    void falsePassAtTheTruthStaysWithinTheBound() {
        QFETCH(double, cv);
        QFETCH(int, maxRepetitions);
        const Design d{cv, 0.29, maxRepetitions};
        const auto o = simulate(d, "output_throughput >= +29%", 1000,
                                static_cast<std::uint64_t>(cv * 1000 + maxRepetitions));
        qInfo("%s", qPrintable(describe(d, o)));
        QVERIFY2(o.share(o.passed) <= 0.025, qPrintable(describe(d, o)));
    }
    void lookingAt95PercentInflatesIt() {
        const Design d{0.05, 0.29, 20, false};
        const auto o = simulate(d, "output_throughput >= +29%", 1000, 91);
        qInfo("%s", qPrintable(describe(d, o)));
        QVERIFY2(o.share(o.passed) > 0.04, qPrintable(describe(d, o)));
    }

    // A large effect is decided early: well within half its budget of 20, against the fixed
    // design's runs for 80 % power (GatePower), which a plan must guess the spread for.
    void aLargeEffectStopsEarly() {
        const Design d{0.10, 0.60, 20};
        const auto o = simulate(d, "output_throughput >= +29%", 1000, 17);
        const auto fixed = GatePower::runsPerArm(GatePower::sigmaOfCv(0.10), std::log(1.60),
                                                 std::log(1.29), 0.8, 0.95);
        QVERIFY(fixed);
        qInfo("%s; a fixed design needs %d runs per arm for 80 %% power",
              qPrintable(describe(d, o)), *fixed);
        QVERIFY2(o.share(o.passed) >= 0.95, qPrintable(describe(d, o)));
        QVERIFY2(o.repetitions / o.trials < 10, qPrintable(describe(d, o)));
        QCOMPARE(o.failed, 0);
    }

    // What the runner stops on: decided only when every gate is; INVALID stops; an undecided
    // gate's need is the most any gate needs.
    void theLookDecidesOnEveryGate() {
        ComparisonResult in;
        in.labelA = "a";
        in.labelB = "b";
        std::string error;
        const Gate g1 = *Gate::parse("ttft_p50 <= -25%", error),
                   g2 = *Gate::parse("output_throughput >= +10%", error);
        Gate::Result undecided{Gate::Verdict::Inconclusive, "", 9};
        in.gates = {{g1, {Gate::Verdict::Pass, ""}}, {g2, undecided}};
        KpiComparison k;
        k.name = "output_throughput";
        k.countA = k.countB = 4;
        in.kpis = {k};
        auto look = SequentialLook::of({in});
        QVERIFY(!look.decided);
        QCOMPARE(*look.moreRunsPerArm, 5);
        QVERIFY2(look.needText() == "need about 5 more runs per arm (output_throughput >= +10%)",
                 look.needText().c_str());
        in.gates[1].second = {Gate::Verdict::Fail, ""};
        QVERIFY(SequentialLook::of({in}).decided);
        in.invalid = {"B: run 3: engine_identity fail"};
        look = SequentialLook::of({in});
        QVERIFY(look.invalid && !look.decided);
        in.invalid.clear();
        in.gates[1].second = {Gate::Verdict::Inconclusive, "n/a"};
        look = SequentialLook::of({in});
        QVERIFY(!look.moreRunsPerArm);
        QVERIFY(look.needText().starts_with("the runs so far cannot say"));
        const auto json = nlohmann::json::parse(look.toJsonText());
        QCOMPARE(json["gates"].size(), std::size_t(2));
        QCOMPARE(json["gates"][1]["verdict"].get<std::string>(), std::string("undecided"));
    }
};

QTEST_GUILESS_MAIN(TestSequentialDesign)
#include "tst_sequentialdesign.moc"
