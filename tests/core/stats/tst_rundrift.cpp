#include "core/stats/RunDrift.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace tierscope;

namespace {

struct Rates {
    double fired = 0.0;   // significant and the change in band
    double flagged = 0.0; // significant at all
};

// `trials` arms of `runs` runs at equally spaced times over one hour, each value 1 + drift *
// (elapsed fraction) times log-normal noise of coefficient of variation `cv`.
Rates simulate(std::uint64_t seed, int trials, int runs, double drift, double cv, double bandLo,
               double bandHi) {
    std::mt19937_64 rng(seed);
    const double sigma = std::sqrt(std::log1p(cv * cv));
    std::normal_distribution<double> noise(-0.5 * sigma * sigma, sigma);
    int fired = 0, flagged = 0;
    std::vector<double> times(runs), values(runs);
    for (int trial = 0; trial < trials; ++trial) {
        for (int i = 0; i < runs; ++i) {
            const double fraction = static_cast<double>(i) / (runs - 1);
            times[i] = 1.7e9 + 3600.0 * fraction; // epoch seconds, as the store keeps them
            values[i] = 0.25 * (1.0 + drift * fraction) * std::exp(noise(rng));
        }
        const auto trend = RunDrift::of(times, values);
        if (!trend)
            qFatal("no trend from a valid series");
        if (trend->significant) {
            ++flagged;
            if (trend->change >= bandLo && trend->change <= bandHi)
                ++fired;
        }
    }
    return {static_cast<double>(fired) / trials, static_cast<double>(flagged) / trials};
}

} // namespace

class TestRunDrift : public QObject {
    Q_OBJECT
  private slots:
    void exactExponentialDriftIsRecoveredExactly() {
        // log(value) exactly linear in time: +20 % from the first run to the last, given out
        // of order and with an epoch origin.
        std::vector<double> times, values;
        for (const int i : {3, 0, 5, 1, 4, 2}) {
            times.push_back(1.7e9 + 60.0 * i);
            values.push_back(2.0 * std::pow(1.2, i / 5.0));
        }
        const auto trend = RunDrift::of(times, values);
        QVERIFY(trend);
        QVERIFY2(std::abs(trend->change - 0.2) < 1e-9, qPrintable(QString::number(trend->change)));
        QVERIFY(trend->pValue < 1e-9);
        QVERIFY(trend->significant);
        QCOMPARE(trend->runs, 6);

        // Falling: -30 %.
        const auto down = RunDrift::of({0, 1, 2}, {1.0, std::sqrt(0.7), 0.7});
        QVERIFY(down && std::abs(down->change + 0.3) < 1e-12 && down->significant);
    }

    void flatSeriesIsNotSignificant() {
        const auto constant = RunDrift::of({0, 10, 20, 30, 40, 50, 60}, std::vector(7, 0.1));
        QVERIFY(constant);
        QCOMPARE(constant->change, 0.0);
        QCOMPARE(constant->pValue, 1.0);
        QVERIFY(!constant->significant);

        // Noise with no trend: symmetric about the middle, so the slope is exactly 0.
        const auto zigzag = RunDrift::of({0, 1, 2, 3, 4}, {1.0, 1.1, 0.9, 1.1, 1.0});
        QVERIFY(zigzag);
        QVERIFY(std::abs(zigzag->change) < 1e-12);
        QVERIFY(zigzag->pValue > 0.99);
        QVERIFY(!zigzag->significant);
    }

    void hostileInputsGiveNothing() {
        QVERIFY(!RunDrift::of({}, {}));
        QVERIFY(!RunDrift::of({0, 1}, {1, 2}));              // fewer than 3 runs
        QVERIFY(!RunDrift::of({0, 1, 2}, {1, 2}));           // lengths differ
        QVERIFY(!RunDrift::of({0, 1, 2}, {1, 0, 2}));        // zero
        QVERIFY(!RunDrift::of({0, 1, 2}, {1, -1, 2}));       // negative
        QVERIFY(!RunDrift::of({0, 1, 2}, {1, NAN, 2}));      // not a number
        QVERIFY(!RunDrift::of({0, 1, 2}, {1, INFINITY, 2})); // infinite
        QVERIFY(!RunDrift::of({0, NAN, 2}, {1, 2, 3}));      // a time not a number
        QVERIFY(!RunDrift::of({5, 5, 5}, {1, 2, 3}));        // all times equal
        // Two distinct times suffice for a slope; the test has one degree of freedom.
        const auto two = RunDrift::of({5, 5, 6}, {1, 1.1, 2});
        QVERIFY(two && two->change > 0.0 && two->pValue > 0.0 && two->pValue < 1.0);
    }

    // 8 runs, CV 2 %: a 10 % linear drift fires, significant with the fitted change within
    // +5 .. +15 %, in >= 90 % of trials.
    void tenPercentDriftIsDetected() {
        const Rates r = simulate(11, 2000, 8, 0.10, 0.02, 0.05, 0.15);
        qInfo("10 %% drift, CV 2 %%, 8 runs, 2000 trials: fired %.1f %% (significant %.1f %%)",
              100 * r.fired, 100 * r.flagged);
        QVERIFY2(r.fired >= 0.90, qPrintable(QString::number(r.fired)));
    }

    // No drift: the test's size is alpha. 2000 trials: sd of the rate 0.49 %, so 6.5 % is three
    // sd above; the lower bound catches a test gone conservative.
    void noDriftFiresAtAlpha() {
        for (const double cv : {0.02, 0.05}) {
            // Separate seeds: the t statistic is scale-free, so one seed would give both CVs the
            // very same figure.
            const Rates r = simulate(cv < 0.03 ? 12 : 14, 2000, 8, 0.0, cv, -1.0, 1.0);
            qInfo("no drift, CV %.0f %%, 8 runs, 2000 trials: fired %.2f %%", 100 * cv,
                  100 * r.flagged);
            QVERIFY2(r.flagged <= 0.065 && r.flagged >= 0.035,
                     qPrintable(QString::number(r.flagged)));
        }
    }

    // CV 5 %: the slope's standard error is 2.7 times larger and 8 runs cannot see 10 %
    // reliably; the expected power is about a quarter (noncentral t, delta ~1.8, 6 dof). The
    // bounds pin that figure rather than a hope.
    void tenPercentDriftUnderFivePercentNoise() {
        const Rates r = simulate(13, 2000, 8, 0.10, 0.05, 0.0, 0.30);
        qInfo("10 %% drift, CV 5 %%, 8 runs, 2000 trials: fired %.1f %% (significant %.1f %%)",
              100 * r.fired, 100 * r.flagged);
        QVERIFY2(r.flagged >= 0.20 && r.flagged <= 0.50, qPrintable(QString::number(r.flagged)));
    }
};

QTEST_GUILESS_MAIN(TestRunDrift)
#include "tst_rundrift.moc"
