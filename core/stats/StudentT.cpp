#include "core/stats/StudentT.h"

#include <cmath>
#include <initializer_list>
#include <limits>

namespace tierscope {

namespace {

// The continued fraction of the regularized incomplete beta function I_x(a, b), evaluated by
// the modified Lentz method; it converges quickly for x < (a + 1) / (a + b + 2).
double betaFraction(double x, double a, double b) {
    constexpr double tiny = 1e-300;
    constexpr double epsilon = 1e-15;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (std::abs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 500; ++m) {
        for (const bool even : {true, false}) {
            const double numerator =
                even ? m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m))
                     : -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
            d = 1.0 + numerator * d;
            d = 1.0 / (std::abs(d) < tiny ? tiny : d);
            c = 1.0 + numerator / c;
            c = std::abs(c) < tiny ? tiny : c;
            f *= c * d;
            if (!even && std::abs(c * d - 1.0) < epsilon)
                return f;
        }
    }
    return f;
}

double incompleteBeta(double x, double a, double b) {
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(logFront);
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * betaFraction(x, a, b) / a;
    return 1.0 - front * betaFraction(1.0 - x, b, a) / b;
}

} // namespace

double StudentT::cdf(double t, double dof) {
    if (std::isinf(t))
        return t > 0 ? 1.0 : 0.0;
    const double x = dof / (dof + t * t);
    const double tail = 0.5 * incompleteBeta(x, dof / 2.0, 0.5); // P(T > |t|)
    return t > 0 ? 1.0 - tail : tail;
}

double StudentT::quantile(double p, double dof) {
    if (!(p > 0.0 && p < 1.0) || !(dof > 0.0))
        return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.5)
        return 0.0;
    // The cdf is monotonic: bisect on a bracket that doubles until it holds p.
    double lo = -1.0, hi = 1.0;
    while (cdf(lo, dof) > p)
        lo *= 2.0;
    while (cdf(hi, dof) < p)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++i) {
        const double mid = 0.5 * (lo + hi);
        (cdf(mid, dof) < p ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

} // namespace tierscope
