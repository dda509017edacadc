#include "core/stats/StudentT.h"
#include "core/stats/TInterval.h"

#include <QtTest>
#include <cmath>

using namespace tierscope;

class TestTInterval : public QObject {
    Q_OBJECT
  private slots:
    // Closed forms: one degree of freedom is Cauchy, two has an algebraic cdf.
    void cdfMatchesClosedForms() {
        for (const double t : {-30.0, -3.0, -0.5, 0.0, 0.7, 2.0, 12.0}) {
            QVERIFY(std::abs(StudentT::cdf(t, 1) - (0.5 + std::atan(t) / M_PI)) < 1e-12);
            QVERIFY(std::abs(StudentT::cdf(t, 2) - (0.5 + t / (2 * std::sqrt(2 + t * t)))) < 1e-12);
        }
        // Far out, the normal limit.
        QVERIFY(std::abs(StudentT::cdf(1.959963984540054, 1e7) - 0.975) < 1e-7);
    }

    // The two-sided 95 % critical values of the published t tables.
    void quantilesMatchTheTables() {
        const std::pair<double, double> table[] = {
            {1, 12.706204736174707}, {2, 4.302652729749464},  {3, 3.182446305284263},
            {5, 2.570581835636314},  {10, 2.228138851986274}, {30, 2.042272456301238}};
        for (const auto& [dof, t] : table)
            QVERIFY2(std::abs(StudentT::quantile(0.975, dof) - t) < 1e-9,
                     qPrintable(QString("dof %1: %2")
                                    .arg(dof)
                                    .arg(StudentT::quantile(0.975, dof), 0, 'g', 16)));
        QVERIFY(std::abs(StudentT::quantile(0.025, 4) + StudentT::quantile(0.975, 4)) < 1e-12);
        // Fractional degrees of freedom, as Welch gives, lie between their neighbours and
        // invert the cdf.
        const double q = StudentT::quantile(0.975, 4.0755);
        QVERIFY(q < StudentT::quantile(0.975, 4) && q > StudentT::quantile(0.975, 5));
        QVERIFY(std::abs(StudentT::cdf(q, 4.0755) - 0.975) < 1e-12);
        QVERIFY(std::isnan(StudentT::quantile(1.0, 3)));
    }

    void welchKnownAnswer() {
        // a: mean 2, variance 1; b: mean 5, variance 20/3. se^2 = 1/3 + 5/3 = 2.
        const auto w = TInterval::welch({1, 2, 3}, {2, 4, 6, 8});
        QVERIFY(w);
        QCOMPARE(w->estimate, 3.0);
        const double dof = 4.0 / ((1.0 / 9) / 2 + (25.0 / 9) / 3);
        QVERIFY(std::abs(w->dof - dof) < 1e-12);
        const double half = StudentT::quantile(0.975, dof) * std::sqrt(2.0);
        QVERIFY(std::abs(w->interval.lo - (3 - half)) < 1e-12);
        QVERIFY(std::abs(w->interval.hi - (3 + half)) < 1e-12);
        QVERIFY(!TInterval::welch({1}, {2, 3}));
        QVERIFY(!TInterval::welch({1, NAN}, {2, 3}));
        // No spread at all: the interval is the point.
        const auto flat = TInterval::welch({2, 2}, {3, 3});
        QVERIFY(flat && flat->interval.lo == 1.0 && flat->interval.hi == 1.0);
    }

    void ratioIsWelchOnTheLogs() {
        const auto r = TInterval::welchRatio({1, 2, 4}, {2, 4, 8});
        QVERIFY(r);
        QVERIFY(std::abs(r->estimate - 2.0) < 1e-12); // geometric means 2 and 4
        const auto logs = TInterval::welch({0, std::log(2.0), std::log(4.0)},
                                           {std::log(2.0), std::log(4.0), std::log(8.0)});
        QVERIFY(std::abs(r->interval.lo - std::exp(logs->interval.lo)) < 1e-12);
        QVERIFY(std::abs(r->interval.hi - std::exp(logs->interval.hi)) < 1e-12);
        QVERIFY(!TInterval::welchRatio({0, 1}, {1, 2})); // no log of zero
    }

    // Wilson's bound: 0 of 200 is below 1.88 %, 10 of 100 below 17.4 % (the closed form).
    void wilsonUpperBound() {
        QVERIFY(std::abs(TInterval::wilsonUpper(0, 200) - 0.0188453) < 1e-6);
        QVERIFY(std::abs(TInterval::wilsonUpper(10, 100) - 0.1743657) < 1e-6);
        QCOMPARE(TInterval::wilsonUpper(0, 0), 1.0);
    }

    void oneSampleMean() {
        const auto m = TInterval::mean({1, 2, 3});
        QVERIFY(m);
        QCOMPARE(m->estimate, 2.0);
        const double half = 4.302652729749464 / std::sqrt(3.0);
        QVERIFY(std::abs(m->interval.hi - (2 + half)) < 1e-8);
        QVERIFY(!TInterval::mean({1}));
    }
};

QTEST_GUILESS_MAIN(TestTInterval)
#include "tst_tinterval.moc"
