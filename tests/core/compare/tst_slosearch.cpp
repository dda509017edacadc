#include "core/compare/SloSearch.h"

#include <QtTest>

using namespace tierscope;

// The search's bracketing on a known monotone curve: the SLOs hold up to a capacity C and
// fail above it, so after k bisection steps the answer brackets C within the grid gap / 2^k.
class TestSloSearch : public QObject {
    Q_OBJECT
  private slots:
    void bisectsBetweenTheLastHoldAndTheFirstFailure() {
        const double capacity = 6.7;
        std::vector<double> probed;
        auto probe = [&](double p) -> std::optional<bool> {
            probed.push_back(p);
            return p <= capacity;
        };
        const auto r =
            SloSearch::run({{8, false}, {1, true}, {2, true}, {4, true}}, 3, false, probe);
        QVERIFY(r.reached());
        // [4, 8] -> 6 holds -> [6, 8] -> 7 fails -> [6, 7] -> 6.5 holds
        QCOMPARE(probed, (std::vector<double>{6, 7, 6.5}));
        QCOMPARE(r.bisected, probed);
        QCOMPARE(*r.holdsAt, 6.5);
        QCOMPARE(*r.failsAt, 7.0);
        QVERIFY(*r.holdsAt <= capacity && capacity < *r.failsAt);
    }

    void notReachedWithinTheGrid() {
        auto never = [](double) -> std::optional<bool> {
            QTest::qFail("no bisection without a bracket", __FILE__, __LINE__);
            return false;
        };
        const auto low = SloSearch::run({{1, false}, {2, false}}, 3, false, never);
        QVERIFY(!low.reached() && !low.holdsAt);
        QCOMPARE(*low.failsAt, 1.0);
        const auto high = SloSearch::run({{1, true}, {2, true}}, 3, false, never);
        QVERIFY(!high.reached() && !high.failsAt);
        QCOMPARE(*high.holdsAt, 2.0);
    }

    // The first failure bounds the answer, even when a higher point holds again.
    void aHoldAboveTheFirstFailureIsReportedNotUsed() {
        const auto r = SloSearch::run({{1, true}, {2, false}, {4, true}}, 0, false, {});
        QCOMPARE(*r.holdsAt, 1.0);
        QCOMPARE(*r.failsAt, 2.0);
        QCOMPARE(r.holdsAbove, std::vector<double>{4});
    }

    // Concurrencies are whole: bisection stops when the bracket's ends are adjacent.
    void wholePointsStopWhenAdjacent() {
        std::vector<double> probed;
        auto probe = [&](double p) -> std::optional<bool> {
            probed.push_back(p);
            return p <= 5;
        };
        const auto r = SloSearch::run({{4, true}, {8, false}}, 10, true, probe);
        QCOMPARE(probed, (std::vector<double>{6, 5}));
        QCOMPARE(*r.holdsAt, 5.0);
        QCOMPARE(*r.failsAt, 6.0);
        // A probe that could not be measured (cancelled) ends the search where it stands.
        const auto stopped =
            SloSearch::run({{4, true}, {8, false}}, 10, true, [](double) { return std::nullopt; });
        QCOMPARE(*stopped.holdsAt, 4.0);
        QCOMPARE(*stopped.failsAt, 8.0);
        QVERIFY(stopped.bisected.empty());
    }
};

QTEST_GUILESS_MAIN(TestSloSearch)
#include "tst_slosearch.moc"
