#include "core/compare/Comparison.h"
#include "core/compare/Gate.h"
#include "core/stats/GatePower.h"

#include <QtTest>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

using namespace tierscope;

// GatePower's predictions against experiments simulated through the real comparison
// (Comparison::compare, then Gate::judge), so that a change in how either builds its interval
// shows here as a power that no longer matches. Seeded: the figures printed are the same on
// every machine, and the docs quote them.
namespace {

constexpr double kTtftA = 0.200;        // s
constexpr double kThroughputA = 1000.0; // tok/s
// Experiments per design; half as many again away from the recommended n, where only the 0.04
// bounds the observed rate. A thousand comparisons take about 3 s in the sanitizer build.
constexpr int kTrials = 1000, kTrialsAway = 1500;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Gate parseGate(const std::string& text) {
    std::string error;
    const auto g = Gate::parse(text, error);
    if (!g)
        qFatal("%s: %s", text.c_str(), error.c_str());
    return *g;
}

// The gate's threshold as a ratio B/A, on the log scale GatePower works in.
double gateLog(const Gate& g) {
    return std::log(g.kind == Gate::Kind::Relative ? 1.0 + g.threshold : g.threshold);
}

// One arm of `runs` runs whose KPI is log-normal around `median` with sd `sigma` of its log.
// A run carries only what its KPI needs (one request for a TTFT, a summary figure for a
// throughput), which keeps a thousand experiments cheap under a sanitizer.
ComparisonSide side(const std::string& kpi, int runs, double sigma, double median,
                    std::mt19937_64& random) {
    std::normal_distribution<double> normal(0.0, 1.0);
    ComparisonSide s;
    for (int r = 0; r < runs; ++r) {
        const double value = median * std::exp(sigma * normal(random));
        RunInfo run;
        run.id = r + 1;
        run.workload = "load";
        run.status = "completed";
        std::vector<StoredRequest> requests;
        if (kpi == "output_throughput") {
            run.summaryJson = nlohmann::json{{"output_throughput", value}}.dump();
        } else {
            StoredRequest q;
            q.ttftS = value;
            q.ok = true;
            requests.push_back(q);
        }
        s.runs.push_back(run);
        s.requests.push_back(std::move(requests));
    }
    return s;
}

struct Design {
    const char* label;
    double cv;        // between runs, within an arm
    double trueRatio; // B/A
    const char* gate;

    double sigma() const { return GatePower::sigmaOfCv(cv); }
    double trueLog() const { return std::log(trueRatio); }
    // The verdict that decides this design correctly: the truth's side of the threshold.
    Gate::Verdict correct() const {
        const Gate g = parseGate(gate);
        const bool below = trueLog() < gateLog(g);
        return below == g.atMost ? Gate::Verdict::Pass : Gate::Verdict::Fail;
    }
    double predicted(int runs) const {
        return GatePower::power(sigma(), trueLog(), gateLog(parseGate(gate)), runs);
    }
};

// The share of `trials` simulated experiments of `runs` runs per arm that the gate decides
// correctly.
double simulate(const Design& d, int runs, int trials, std::uint64_t seed) {
    const Gate g = parseGate(d.gate);
    const double base = g.kpi == "output_throughput" ? kThroughputA : kTtftA;
    const double sigma = d.sigma();
    const Gate::Verdict correct = d.correct();
    std::mt19937_64 random(seed);
    int decided = 0;
    for (int i = 0; i < trials; ++i) {
        const auto a = side(g.kpi, runs, sigma, base, random);
        const auto b = side(g.kpi, runs, sigma, base * d.trueRatio, random);
        bool found = false;
        for (const auto& k : Comparison::compare(a, b)) {
            if (k.name != g.kpi)
                continue;
            if (!k.interval || k.scale != KpiComparison::Scale::Ratio)
                qFatal("no ratio interval for %s with %d runs", k.name.c_str(), runs);
            found = true;
            decided += g.judge(k).verdict == correct;
        }
        if (!found)
            qFatal("the comparison has no %s", g.kpi.c_str());
    }
    return decided / static_cast<double>(trials);
}

QString report(const Design& d, int runs, int trials, double predicted, double observed) {
    return QString("%1 (gate \"%2\", %3): %4 runs per arm, predicted power %5 %, observed %6 % "
                   "of %7 simulated experiments")
        .arg(d.label, d.gate, d.correct() == Gate::Verdict::Pass ? "passes" : "fails")
        .arg(runs)
        .arg(predicted * 100, 0, 'f', 1)
        .arg(observed * 100, 0, 'f', 1)
        .arg(trials);
}

// Each design's predicted power at its rounded-up n is at most 0.85 (82.7, 81.0, 81.6, 82.3
// and 83.3 %), so demanding an observed 75-85 % is honest: the band holds the truth, and a
// thousand trials have a standard error of 1.2 points (the last design is 1.4 of them from the
// band's edge).
const Design kDesigns[] = {
    {"CV 5 %, true -30 %", 0.05, 0.70, "ttft_p50 <= -25%"},
    {"CV 10 %, true -35 %", 0.10, 0.65, "ttft_p50 <= -25%"},
    // With a CV of 20 % this gate takes 47 runs a side (predicted 80.8 %; 83.2, 81.2 and
    // 78.1 % in three seeded runs of 1000), three times the cost of all the others here, so it
    // is left to 10 %.
    {"CV 10 %, true +45 %", 0.10, 1.45, "output_throughput >= +29%"},
    {"CV 20 %, true -45 %", 0.20, 0.55, "ttft_p50 <= -25%"},
    // The truth above a "<=" threshold: the gate should fail, and does with this power.
    {"CV 10 %, true -15 %", 0.10, 0.85, "ttft_p50 <= -25%"},
};

} // namespace

class TestGatePower : public QObject {
    Q_OBJECT
  private slots:
    void powerRisesWithRunsAndMargin() {
        const double sigma = 0.1, gateAt = std::log(0.75);
        double previous = 0.0;
        for (int n = 2; n <= 40; ++n) {
            const double p = GatePower::power(sigma, std::log(0.65), gateAt, n);
            QVERIFY2(p > previous,
                     qPrintable(QString("n %1: %2 after %3").arg(n).arg(p).arg(previous)));
            previous = p;
        }
        previous = 0.0;
        for (const double truth : {0.74, 0.72, 0.70, 0.65, 0.60, 0.50}) {
            const double p = GatePower::power(sigma, std::log(truth), gateAt, 6);
            QVERIFY(p > previous);
            previous = p;
        }
        // Only the distance from the threshold counts, not its side.
        QCOMPARE(GatePower::power(sigma, gateAt - 0.1, gateAt, 7),
                 GatePower::power(sigma, gateAt + 0.1, gateAt, 7));
        QVERIFY(GatePower::power(sigma, std::log(0.2), gateAt, 50) > 0.999);
    }

    // With many runs the t interval is a normal one: power = Phi(delta - 1.96), 0.8 at
    // delta = 1.96 + 0.8416. Just off the threshold the gate is decided only by the 2.5 % an
    // interval misses on one side.
    void powerMatchesTheNormalLimit() {
        const double sigma = 0.1;
        const int n = 2000;
        const double se = sigma * std::sqrt(2.0 / n);
        const double p = GatePower::power(sigma, -(1.959964 + 0.841621) * se, 0.0, n);
        QVERIFY2(std::abs(p - 0.8) < 0.002, qPrintable(QString::number(p)));
        const double nearly = GatePower::power(sigma, 1e-9, 0.0, 10);
        QVERIFY2(std::abs(nearly - 0.025) < 0.002, qPrintable(QString::number(nearly)));
    }

    void runsPerArmIsTheSmallestReachingTheTarget() {
        for (const auto& d : kDesigns) {
            const double g = gateLog(parseGate(d.gate));
            for (const double target : {0.5, 0.8, 0.9}) {
                const auto n = GatePower::runsPerArm(d.sigma(), d.trueLog(), g, target);
                QVERIFY(n);
                QVERIFY(*n >= 2);
                QVERIFY(GatePower::power(d.sigma(), d.trueLog(), g, *n) >= target);
                if (*n > 2)
                    QVERIFY(GatePower::power(d.sigma(), d.trueLog(), g, *n - 1) < target);
                // n runs decide this margin, so the smallest they decide is no larger...
                const double margin = GatePower::decidableMargin(d.sigma(), *n, target);
                QVERIFY2(margin <= std::abs(d.trueLog() - g),
                         qPrintable(QString("%1 > %2").arg(margin).arg(std::abs(d.trueLog() - g))));
                // ... and it is where the power crosses the target.
                QVERIFY(std::abs(GatePower::power(d.sigma(), g - margin, g, *n, 0.95) - target) <
                        1e-6);
                if (*n > 2)
                    QVERIFY(GatePower::decidableMargin(d.sigma(), *n - 1, target) >
                            std::abs(d.trueLog() - g));
            }
        }
        // A huge budget still answers in a few dozen evaluations.
        const auto many = GatePower::runsPerArm(0.1, 1e-4, 0.0, 0.8, 0.95, 2147483647);
        QVERIFY(many);
        QVERIFY2(std::abs(*many / (2 * std::pow(0.1 * 2.8016 / 1e-4, 2)) - 1) < 0.01,
                 qPrintable(QString::number(*many)));
        QVERIFY(!GatePower::runsPerArm(0.1, 1e-4, 0.0, 0.8, 0.95, 1000));
        QCOMPARE(GatePower::runsPerArm(0.1, std::log(0.2), std::log(0.75)).value_or(-1), 2);
    }

    void decidableMarginShrinksWithRuns() {
        double previous = kInf;
        for (const int n : {2, 3, 5, 10, 30, 100}) {
            const double m = GatePower::decidableMargin(0.1, n);
            QVERIFY(m < previous);
            previous = m;
        }
        // A target the threshold's own 2.5 % already meets needs no margin at all.
        QCOMPARE(GatePower::decidableMargin(0.1, 5, 0.02), 0.0);
    }

    void cvRoundTrips() {
        for (const double cv : {0.0, 0.001, 0.05, 0.1, 0.2, 0.5, 1.0, 3.0}) {
            QVERIFY(std::abs(GatePower::cvOfSigma(GatePower::sigmaOfCv(cv)) - cv) <=
                    1e-12 * std::max(1.0, cv));
            QVERIFY(std::abs(GatePower::sigmaOfCv(GatePower::cvOfSigma(cv)) - cv) <=
                    1e-12 * std::max(1.0, cv));
        }
        // Small spreads: the CV and the sd of the logs agree to first order.
        QVERIFY(std::abs(GatePower::sigmaOfCv(0.05) - 0.05) < 1e-4);
        QCOMPARE(GatePower::sigmaOfCv(1.0), std::sqrt(std::log(2.0)));
    }

    void hostileInputs() {
        const double t = std::log(0.7), g = std::log(0.75);
        for (const double sigma : {0.0, -0.1, kNan, kInf}) {
            QCOMPARE(GatePower::power(sigma, t, g, 10), 0.0);
            QVERIFY(!GatePower::runsPerArm(sigma, t, g));
            QVERIFY(std::isnan(GatePower::decidableMargin(sigma, 10)));
        }
        for (const double confidence : {0.0, 1.0, -0.5, 1.5, kNan}) {
            QCOMPARE(GatePower::power(0.1, t, g, 10, confidence), 0.0);
            QVERIFY(!GatePower::runsPerArm(0.1, t, g, 0.8, confidence));
            QVERIFY(std::isnan(GatePower::decidableMargin(0.1, 10, 0.8, confidence)));
        }
        for (const double target : {0.0, 1.0, -1.0, 2.0, kNan}) {
            QVERIFY(!GatePower::runsPerArm(0.1, t, g, target));
            QVERIFY(std::isnan(GatePower::decidableMargin(0.1, 10, target)));
        }
        for (const int n : {1, 0, -5, std::numeric_limits<int>::min()}) {
            QCOMPARE(GatePower::power(0.1, t, g, n), 0.0);
            QVERIFY(std::isnan(GatePower::decidableMargin(0.1, n)));
        }
        for (const int maxRuns : {1, 0, -3})
            QVERIFY(!GatePower::runsPerArm(0.1, t, g, 0.8, 0.95, maxRuns));
        QVERIFY(!GatePower::runsPerArm(0.1, t, g, 0.8, 0.95, 2));
        // No true side to decide.
        QCOMPARE(GatePower::power(0.1, g, g, 10), 0.0);
        QVERIFY(!GatePower::runsPerArm(0.1, g, g));
        for (const double log : {kNan, kInf, -kInf}) {
            QCOMPARE(GatePower::power(0.1, log, g, 10), 0.0);
            QCOMPARE(GatePower::power(0.1, t, log, 10), 0.0);
            QVERIFY(!GatePower::runsPerArm(0.1, log, g));
        }
        // A target so near 1 that rounding may never reach it ends, with an answer or none.
        QVERIFY(std::isnan(GatePower::decidableMargin(0.1, 10, std::nextafter(1.0, 0.0))) ||
                GatePower::decidableMargin(0.1, 10, std::nextafter(1.0, 0.0)) > 0.0);
        // A confidence whose critical t is enormous decides almost nothing, without crashing.
        QVERIFY(GatePower::power(0.1, t, g, 2, 1.0 - 1e-15) < 0.01);
        for (const double cv : {-0.1, kNan})
            QVERIFY(std::isnan(GatePower::sigmaOfCv(cv)));
        for (const double sigma : {-0.1, kNan})
            QVERIFY(std::isnan(GatePower::cvOfSigma(sigma)));
    }

    // At the n runsPerArm recommends for an 80 % target, the real comparison decides the gate
    // in 75-85 % of simulated experiments, and within 4 points of power(n).
    void simulatedAtTheRecommendedRuns_data() {
        QTest::addColumn<int>("design");
        for (int i = 0; i < static_cast<int>(std::size(kDesigns)); ++i)
            QTest::addRow("%s, %s", kDesigns[i].label, kDesigns[i].gate) << i;
    }

    void simulatedAtTheRecommendedRuns() {
        QFETCH(int, design);
        const Design& d = kDesigns[design];
        const auto n = GatePower::runsPerArm(d.sigma(), d.trueLog(), gateLog(parseGate(d.gate)));
        QVERIFY(n);
        const double predicted = d.predicted(*n);
        QVERIFY2(predicted <= 0.85, qPrintable(QString::number(predicted)));
        const double observed = simulate(d, *n, kTrials, 1000 + design);
        const QString line = report(d, *n, kTrials, predicted, observed);
        qInfo("%s", qPrintable(line));
        QVERIFY2(observed >= 0.75 && observed <= 0.85, qPrintable(line));
        QVERIFY2(std::abs(observed - predicted) <= 0.04, qPrintable(line));
    }

    // Away from the recommendation too, down to 3 runs a side where Welch's dof is far below
    // 2n - 2 and a shifted central t would overstate the power.
    void simulatedAtOtherRuns_data() {
        QTest::addColumn<int>("design");
        QTest::addColumn<int>("runs");
        for (const auto& [design, runs] : {std::pair{0, 3}, {0, 7}, {2, 4}})
            QTest::addRow("%s, %s, %d runs", kDesigns[design].label, kDesigns[design].gate, runs)
                << design << runs;
    }

    void simulatedAtOtherRuns() {
        QFETCH(int, design);
        QFETCH(int, runs);
        const Design& d = kDesigns[design];
        const double predicted = d.predicted(runs);
        const double observed = simulate(d, runs, kTrialsAway, 2000 + 10 * design + runs);
        const QString line = report(d, runs, kTrialsAway, predicted, observed);
        qInfo("%s", qPrintable(line));
        QVERIFY2(std::abs(observed - predicted) <= 0.04, qPrintable(line));
    }
};

QTEST_GUILESS_MAIN(TestGatePower)
#include "tst_gatepower.moc"
