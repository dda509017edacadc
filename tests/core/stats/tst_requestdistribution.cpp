#include "core/stats/RequestDistribution.h"

#include <QtTest>
#include <array>
#include <cmath>
#include <random>

using namespace tierscope;

namespace {

double bruteCliff(const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    for (const double y : b)
        for (const double x : a)
            sum += (y > x) - (y < x);
    return sum / (static_cast<double>(a.size()) * static_cast<double>(b.size()));
}

// `n` values from a mixture of log-normals given by (median, sd-log, weight); the component of
// each value drawn at random.
std::vector<double> mixture(std::mt19937_64& rng, int n,
                            const std::vector<std::array<double, 3>>& parts) {
    std::vector<double> weights;
    for (const auto& p : parts)
        weights.push_back(p[2]);
    std::discrete_distribution<int> pick(weights.begin(), weights.end());
    std::normal_distribution<double> z;
    std::vector<double> out(n);
    for (double& v : out) {
        const auto& p = parts[pick(rng)];
        v = p[0] * std::exp(p[1] * z(rng));
    }
    return out;
}

QString describe(const std::vector<RequestDistribution::Mode>& modes) {
    QStringList parts;
    for (const auto& m : modes)
        parts << QString("%1 s (%2)").arg(m.at, 0, 'g', 4).arg(m.share, 0, 'f', 3);
    return parts.join(", ");
}

} // namespace

class TestRequestDistribution : public QObject {
    Q_OBJECT
  private slots:
    void cliffsDeltaKnownAnswers() {
        QCOMPARE(*RequestDistribution::cliffsDelta({1, 2, 3}, {4, 5}), 1.0);
        QCOMPARE(*RequestDistribution::cliffsDelta({4, 5}, {1, 2, 3}), -1.0);
        QCOMPARE(*RequestDistribution::cliffsDelta({1, 2, 3}, {1, 2, 3}), 0.0);
        QCOMPARE(*RequestDistribution::cliffsDelta({7, 7}, {7}), 0.0);
        // a = {1, 2, 2, 3}, b = {2, 3}. b = 2: above 1, ties 2 and 2, below 3: +1 - 1. b = 3:
        // above 1, 2, 2, ties 3: +3. (4 - 1) / 8.
        QCOMPARE(*RequestDistribution::cliffsDelta({1, 2, 2, 3}, {2, 3}), 3.0 / 8.0);
        // Non-finite values are ignored, not ranked: as if {1, 2} against {3}.
        QCOMPARE(*RequestDistribution::cliffsDelta({1, NAN, 2, INFINITY}, {3, -INFINITY}), 1.0);
        QVERIFY(!RequestDistribution::cliffsDelta({}, {1}));
        QVERIFY(!RequestDistribution::cliffsDelta({1}, {NAN, INFINITY}));
    }

    // Random data with many ties (rounded values) against the O(nm) count.
    void cliffsDeltaMatchesBruteForce() {
        std::mt19937_64 rng(21);
        std::normal_distribution<double> z;
        for (int trial = 0; trial < 50; ++trial) {
            const int n = 1 + static_cast<int>(rng() % 300), m = 1 + static_cast<int>(rng() % 300);
            const double shift = 0.1 * (trial % 7 - 3);
            std::vector<double> a(n), b(m);
            for (double& v : a)
                v = std::round(10 * z(rng)) / 10;
            for (double& v : b)
                v = std::round(10 * (z(rng) + shift)) / 10;
            const double fast = *RequestDistribution::cliffsDelta(a, b);
            QVERIFY2(std::abs(fast - bruteCliff(a, b)) < 1e-12,
                     qPrintable(
                         QString("trial %1: %2 vs %3").arg(trial).arg(fast).arg(bruteCliff(a, b))));
        }
    }

    // 100,000 against 100,000 (10^10 pairs, beyond brute force): checked against a million
    // sampled pairs (sd of that estimate ~0.001) and the closed form for two normals a
    // quarter sd apart, 2 Phi(0.25 / sqrt 2) - 1 = 0.1403.
    void cliffsDeltaScales() {
        std::mt19937_64 rng(22);
        std::normal_distribution<double> z;
        std::vector<double> a(100000), b(100000);
        for (double& v : a)
            v = z(rng);
        for (double& v : b)
            v = z(rng) + 0.25;
        const double delta = *RequestDistribution::cliffsDelta(a, b);
        double sampled = 0.0;
        constexpr int pairs = 1000000;
        for (int i = 0; i < pairs; ++i) {
            const double x = a[rng() % a.size()], y = b[rng() % b.size()];
            sampled += (y > x) - (y < x);
        }
        sampled /= pairs;
        qInfo("100k x 100k: delta %.4f, sampled %.4f", delta, sampled);
        QVERIFY(std::abs(delta - sampled) < 0.006);
        QVERIFY(std::abs(delta - (std::erf(0.25 / 2) * 1.0)) < 0.01);
    }

    // 80/20 mixture of log-normals (0.2 s and 4.1 s, sd-log 0.2), 1000 values: two modes, the
    // second at 4.1 s within 15 % with share 0.2 +- 0.05, in >= 99 % of 200 seeds.
    void bimodalMixtureGivesTwoModes() {
        int good = 0;
        QString firstBad;
        for (int seed = 0; seed < 200; ++seed) {
            std::mt19937_64 rng(1000 + seed);
            const auto values = mixture(rng, 1000, {{0.2, 0.2, 0.8}, {4.1, 0.2, 0.2}});
            const auto modes = RequestDistribution::modes(values);
            const bool ok = modes.size() == 2 && std::abs(modes[1].at / 4.1 - 1) < 0.15 &&
                            std::abs(modes[1].share - 0.2) < 0.05 &&
                            std::abs(modes[0].at / 0.2 - 1) < 0.15;
            good += ok;
            if (!ok && firstBad.isEmpty())
                firstBad = QString("seed %1: %2").arg(1000 + seed).arg(describe(modes));
        }
        qInfo("80/20 mixture, 1000 values: two modes as expected in %d of 200 seeds %s", good,
              qPrintable(firstBad));
        QVERIFY(good >= 198);
    }

    // One log-normal, sd-log 0.5, 500 values: exactly one mode in >= 95 % of 200 seeds.
    void unimodalGivesOneMode() {
        int one = 0;
        QString firstBad;
        for (int seed = 0; seed < 200; ++seed) {
            std::mt19937_64 rng(2000 + seed);
            const auto values = mixture(rng, 500, {{0.8, 0.5, 1.0}});
            const auto modes = RequestDistribution::modes(values);
            const bool ok = modes.size() == 1;
            one += ok;
            if (ok)
                QVERIFY(modes[0].share == 1.0 && modes[0].at > 0.5 && modes[0].at < 1.2);
            else if (firstBad.isEmpty())
                firstBad = QString("seed %1: %2").arg(2000 + seed).arg(describe(modes));
        }
        qInfo("log-normal sd-log 0.5, 500 values: one mode in %d of 200 seeds %s", one,
              qPrintable(firstBad));
        QVERIFY(one >= 190);
    }

    // 95/5, far apart (0.1 s and 10 s, sd-log 0.3), exactly 50 of 1000 values in the small
    // component: found with minShare 0.04, merged away with minShare 0.10.
    void smallFarModeNeedsItsShare() {
        for (int seed = 0; seed < 20; ++seed) {
            std::mt19937_64 rng(3000 + seed);
            auto values = mixture(rng, 950, {{0.1, 0.3, 1.0}});
            const auto far = mixture(rng, 50, {{10.0, 0.3, 1.0}});
            values.insert(values.end(), far.begin(), far.end());
            const auto found = RequestDistribution::modes(values, 0.04);
            QVERIFY2(found.size() == 2, qPrintable(describe(found)));
            // Where in the cluster: its 50 values sit under a bandwidth set by the bulk (0.07
            // against the cluster's sd-log 0.3), so the peak wanders; 20 seeds put it between
            // 8.1 and 13.5 s. Within 1.5 sd-log of 10 s.
            QVERIFY2(std::abs(std::log(found[1].at / 10)) < 0.45,
                     qPrintable(QString("seed %1: %2").arg(3000 + seed).arg(describe(found))));
            QCOMPARE(found[1].share, 0.05);
            const auto merged = RequestDistribution::modes(values, 0.10);
            QVERIFY2(merged.size() == 1, qPrintable(describe(merged)));
            QVERIFY(std::abs(merged[0].at / 0.1 - 1) < 0.15);
            QCOMPARE(merged[0].share, 1.0);
        }
    }

    void hostileInputs() {
        QVERIFY(RequestDistribution::modes({}).empty());
        QVERIFY(RequestDistribution::modes(std::vector(19, 0.5)).empty());
        // 20 equal values: one mode at that value, holding all of them.
        const auto equal = RequestDistribution::modes(std::vector(20, 0.5));
        QCOMPARE(equal.size(), std::size_t(1));
        QVERIFY(std::abs(equal[0].at - 0.5) < 1e-12);
        QCOMPARE(equal[0].share, 1.0);
        // Zeros, negatives and non-finite values are dropped before the count of 20.
        std::vector<double> junk(100, 0.0);
        junk.insert(junk.end(), {-1.0, NAN, INFINITY, -INFINITY});
        for (int i = 0; i < 19; ++i)
            junk.push_back(1.0 + 0.01 * i);
        QVERIFY(RequestDistribution::modes(junk).empty());
        junk.push_back(1.2);
        const auto twenty = RequestDistribution::modes(junk);
        QCOMPARE(twenty.size(), std::size_t(1));
        QCOMPARE(twenty[0].share, 1.0);
        QVERIFY(twenty[0].at > 1.0 && twenty[0].at < 1.2);
        // Mostly tied (IQR 0) with a few outliers 30 orders of magnitude away: the bandwidth
        // falls back to the sd, and the tie wins.
        std::vector<double> tied(990, 0.3);
        for (int i = 0; i < 10; ++i)
            tied.push_back(1e30 * (1 + i));
        const auto t = RequestDistribution::modes(tied);
        QCOMPARE(t.size(), std::size_t(1));
        QVERIFY(std::abs(t[0].at / 0.3 - 1) < 0.05);
        // A narrow bulk (a small IQR, so a small bandwidth) and outliers 30 orders of magnitude
        // away: the grid hits its cap, coarser than h / 8, and the bulk still wins.
        std::mt19937_64 narrowRng(5);
        auto narrow = mixture(narrowRng, 980, {{0.3, 0.01, 1.0}});
        for (int i = 0; i < 20; ++i)
            narrow.push_back(1e30 * (1 + i));
        const auto nw = RequestDistribution::modes(narrow);
        QVERIFY2(nw.size() == 1, qPrintable(describe(nw)));
        QVERIFY(std::abs(nw[0].at / 0.3 - 1) < 0.01);
        // Extremes of the double range.
        std::vector<double> extreme;
        for (int i = 0; i < 50; ++i)
            extreme.push_back(i % 2 ? 1e-300 * (1 + i) : 1e300 * (1 + i));
        const auto e = RequestDistribution::modes(extreme);
        QCOMPARE(e.size(), std::size_t(2));
        double total = 0.0;
        for (const auto& m : e)
            total += m.share;
        QVERIFY(std::abs(total - 1.0) < 1e-12);
        // minShare beyond what any basin can hold: everything merges into one.
        std::mt19937_64 rng(4);
        const auto values = mixture(rng, 1000, {{0.2, 0.2, 0.5}, {4.1, 0.2, 0.5}});
        QCOMPARE(RequestDistribution::modes(values, 2.0).size(), std::size_t(1));
        QCOMPARE(RequestDistribution::modes(values, 0.0).size(), std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestRequestDistribution)
#include "tst_requestdistribution.moc"
