#include "core/stats/GatePower.h"

#include "core/stats/StudentT.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

namespace tierscope {

namespace {

// Why not the textbook shifted central t, P(T_{2n-2} > tc - delta): the comparison's Welch
// interval takes its dof from the two sample variances, which with n runs a side falls anywhere
// between n - 1 and 2n - 2, and its width is itself random. Against 100 000 simulated Welch
// intervals the shifted t was off by up to 11 points at 3 runs a side (0.81 for a true 0.69)
// and 4 points at 4; a noncentral t with a fixed 2n - 2 dof is as far off. So the power below
// is the exact one for normal logs with equal variances, by quadrature:
//
//   the sample variances are sigma^2 Va / m and sigma^2 Vb / m, Va, Vb ~ chi2(m), m = n - 1;
//   with S = Va + Vb ~ chi2(2m) and B = Va / S ~ Beta(m/2, m/2), independent of S, the
//   estimated se is se * sqrt(S / 2m) and Welch's dof is m / (B^2 + (1 - B)^2); the interval's
//   far end clears the gate when Z + delta > tc(dof) * sqrt(S / 2m), Z standard normal, so
//   power = E_B E_S Phi(delta - tc(dof(B)) * sqrt(S / 2m)).
//
// It matches those simulations to 0.3 points from 2 runs a side up. Gauss-Legendre nodes and
// Newton steps for the critical values keep it to a fraction of a millisecond: Gate::judge asks
// for runsPerArm on every undecided gate.
constexpr int kDofNodes = 16;
// At 2 and 3 runs a side the estimated se is so spread (chi2 with 2 and 4 dof) and the critical
// t so large that the integrand over it turns from 0 to 1 within a small part of its range: it
// takes more nodes there to stay within 1e-5.
constexpr int kScaleNodes = 48, kScaleNodesFor3 = 128, kScaleNodesFor2 = 320;

struct Node {
    double weight = 0.0;
    double value = 0.0;
};

// Gauss-Legendre nodes and weights on [-1, 1], by Newton's method on P_n.
std::vector<Node> legendre(int n) {
    std::vector<Node> out(n);
    for (int i = 0; i < n; ++i) {
        double x = std::cos(std::numbers::pi * (i + 0.75) / (n + 0.5)), derivative = 1.0;
        for (int step = 0; step < 100; ++step) {
            double p0 = 1.0, p1 = x;
            for (int k = 2; k <= n; ++k) {
                const double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            derivative = n * (x * p1 - p0) / (x * x - 1.0);
            const double dx = p1 / derivative;
            x -= dx;
            if (std::abs(dx) < 1e-15)
                break;
        }
        out[i] = {2.0 / ((1.0 - x * x) * derivative * derivative), x};
    }
    return out;
}

// `nodes` of Gauss-Legendre on [lo, hi], each weighted by exp(logDensity(x)), normalized: the
// density's own constant cancels, and so does most of the quadrature's error on it.
template <typename LogDensity>
std::vector<Node> weighted(const std::vector<Node>& nodes, double lo, double hi,
                           LogDensity logDensity) {
    std::vector<Node> out;
    double total = 0.0;
    for (const auto& n : nodes) {
        const double x = lo + (n.value + 1.0) * (hi - lo) / 2.0;
        out.push_back({n.weight * std::exp(logDensity(x)), x});
        total += out.back().weight;
    }
    for (auto& n : out)
        n.weight /= total;
    return out;
}

double normalCdf(double x) {
    return 0.5 * std::erfc(-x / std::numbers::sqrt2);
}

double studentPdf(double t, double dof) {
    return std::exp(std::lgamma((dof + 1.0) / 2.0) - std::lgamma(dof / 2.0) -
                    0.5 * std::log(dof * std::numbers::pi) -
                    (dof + 1.0) / 2.0 * std::log1p(t * t / dof));
}

// Newton's method on a cdf that rises from 0 to 1, for a root known to lie above 0 (p > 0.5):
// from below the steps rise monotonically to the root (the cdf is concave there), and a step
// that would overshoot below 0 halves instead. NaN when it does not settle.
template <typename Cdf, typename Pdf>
double positiveRoot(double p, double start, Cdf cdf, Pdf pdf) {
    double t = start;
    for (int i = 0; i < 60; ++i) {
        const double step = (cdf(t) - p) / pdf(t);
        if (!std::isfinite(step))
            break;
        const double next = std::max(t - step, t / 2.0);
        if (std::abs(next - t) <= 1e-13 * t)
            return next;
        t = next;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

// The normal quantile, for p in (0, 1): only a starting point, so NaN far out is fine.
double normalQuantile(double p) {
    if (p < 0.5)
        return -normalQuantile(1.0 - p);
    if (p == 0.5)
        return 0.0;
    return positiveRoot(p, 1.0, normalCdf, [](double z) {
        return std::exp(-z * z / 2.0) / std::sqrt(2.0 * std::numbers::pi);
    });
}

// StudentT::quantile bisects, some 60 cdf evaluations; from a Cornish-Fisher start, or the
// neighbouring node's value, a few Newton steps do. p > 0.5.
double criticalT(double p, double dof, double start) {
    if (!std::isfinite(start)) {
        const double z = normalQuantile(p), z2 = z * z;
        start = z + z * (z2 + 1.0) / (4.0 * dof) +
                z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * dof * dof);
    }
    const double t = std::isfinite(start) && start > 0.0
                         ? positiveRoot(
                               p, start, [&](double x) { return StudentT::cdf(x, dof); },
                               [&](double x) { return studentPdf(x, dof); })
                         : std::numeric_limits<double>::quiet_NaN();
    return std::isfinite(t) ? t : StudentT::quantile(p, dof);
}

// False for NaN as well.
bool openUnit(double p) {
    return p > 0.0 && p < 1.0;
}

bool validSigma(double sigma) {
    return std::isfinite(sigma) && sigma > 0.0;
}

// The distribution of the decision statistic for one design (n runs a side, a confidence):
// only delta, the true distance from the gate in standard errors, varies between calls, so
// the critical values are computed once and a bisection on delta is cheap.
class Decision {
  public:
    Decision(int runsPerArm, double confidence) {
        static const std::vector<Node> dofRule = legendre(kDofNodes);
        static const std::vector<Node> scaleRule = legendre(kScaleNodes);
        static const std::vector<Node> scaleRuleFor3 = legendre(kScaleNodesFor3);
        static const std::vector<Node> scaleRuleFor2 = legendre(kScaleNodesFor2);
        const double m = runsPerArm - 1.0;
        const double p = 1.0 - (1.0 - confidence) / 2.0;
        // B = (1 - sin psi) / 2 turns Beta(m/2, m/2) on (0, 1/2] into the density
        // cos(psi)^(m - 1) on [0, pi/2), smooth even where Beta's is infinite (m = 1), and
        // Welch's dof into 2m / (1 + sin^2 psi). For large m it is a normal of sd 1/sqrt(m - 1)
        // around 0: eight of those hold all of it.
        const double psiMax =
            std::min(std::numbers::pi / 2.0, 8.0 / std::sqrt(std::max(m - 1.0, 1.0)));
        m_critical = weighted(dofRule, 0.0, psiMax,
                              [&](double psi) { return (m - 1.0) * std::log(std::cos(psi)); });
        double tc = std::numeric_limits<double>::quiet_NaN();
        for (auto& node : m_critical) {
            const double sine = std::sin(node.value);
            const double dof = 2.0 * m / (1.0 + sine * sine);
            tc = criticalT(p, dof, tc);
            // An interval of unbounded width decides nothing.
            node.value = std::isfinite(tc) ? tc : std::numeric_limits<double>::infinity();
        }
        // u = S / 2m on a log scale: log u has sd about 1/sqrt(m) and, at m = 1, a long left
        // tail (u is exponential there); its density is exp(m (log u - u + 1)).
        const double spread = 1.0 / std::sqrt(m);
        const auto& rule = runsPerArm == 2   ? scaleRuleFor2
                           : runsPerArm == 3 ? scaleRuleFor3
                                             : scaleRule;
        m_scale = weighted(rule, -(8.0 + 6.0 / m) * spread, 8.0 * spread,
                           [&](double logU) { return m * (logU - std::expm1(logU)); });
        for (auto& node : m_scale)
            node.value = std::exp(node.value / 2.0);
    }

    double power(double delta) const {
        double out = 0.0;
        for (const auto& c : m_critical) {
            if (std::isinf(c.value))
                continue;
            double inner = 0.0;
            for (const auto& s : m_scale)
                inner += s.weight * normalCdf(delta - c.value * s.value);
            out += c.weight * inner;
        }
        return std::clamp(out, 0.0, 1.0);
    }

  private:
    std::vector<Node> m_critical; // weight, critical t at that dof
    std::vector<Node> m_scale;    // weight, sqrt(S / 2m)
};

double standardError(double sigma, int runsPerArm) {
    return sigma * std::sqrt(2.0 / runsPerArm);
}

} // namespace

double GatePower::power(double sigma, double trueLog, double gateLog, int runsPerArm,
                        double confidence) {
    const double margin = std::abs(trueLog - gateLog);
    if (!validSigma(sigma) || runsPerArm < 2 || !openUnit(confidence) || !std::isfinite(margin) ||
        margin == 0.0)
        return 0.0;
    return Decision(runsPerArm, confidence).power(margin / standardError(sigma, runsPerArm));
}

std::optional<int> GatePower::runsPerArm(double sigma, double trueLog, double gateLog,
                                         double target, double confidence, int maxRuns) {
    const double margin = std::abs(trueLog - gateLog);
    if (!validSigma(sigma) || !openUnit(target) || !openUnit(confidence) ||
        !std::isfinite(margin) || margin == 0.0 || maxRuns < 2)
        return std::nullopt;
    const auto reaches = [&](int n) {
        return power(sigma, trueLog, gateLog, n, confidence) >= target;
    };
    // Power rises with n (a narrower se, a smaller critical t), so the smallest n is found by
    // stepping out from the normal approximation's n in doubling steps, then bisecting: a few
    // evaluations, as the t interval needs only a little more than the normal one.
    const double z = normalQuantile(1.0 - (1.0 - confidence) / 2.0) + normalQuantile(target);
    const double estimate = 2.0 * std::pow(sigma * z / margin, 2.0);
    int lo = 0, hi = 0; // lo falls short, hi reaches
    const int start =
        std::isfinite(estimate) && z > 0.0
            ? static_cast<int>(std::clamp(std::ceil(estimate), 2.0, static_cast<double>(maxRuns)))
            : 2;
    long long step = 1;
    if (reaches(start)) {
        for (hi = start; !lo; step *= 2) {
            if (hi == 2)
                return 2;
            const int next = static_cast<int>(std::max(2LL, hi - step));
            (reaches(next) ? hi : lo) = next;
        }
    } else {
        for (lo = start; !hi; step *= 2) {
            if (lo == maxRuns)
                return std::nullopt;
            const int next = static_cast<int>(std::min<long long>(maxRuns, lo + step));
            (reaches(next) ? hi : lo) = next;
        }
    }
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (reaches(mid) ? hi : lo) = mid;
    }
    return hi;
}

double GatePower::decidableMargin(double sigma, int runsPerArm, double target, double confidence) {
    if (!validSigma(sigma) || runsPerArm < 2 || !openUnit(target) || !openUnit(confidence))
        return std::numeric_limits<double>::quiet_NaN();
    const Decision decision(runsPerArm, confidence);
    if (decision.power(0.0) >= target)
        return 0.0;
    // Power rises with delta towards 1 > target, so a bracket exists; the cap only guards a
    // target so near 1 that rounding keeps power below it.
    double lo = 0.0, hi = 1.0;
    for (int i = 0; decision.power(hi) < target; ++i) {
        if (i == 64)
            return std::numeric_limits<double>::quiet_NaN();
        lo = hi;
        hi *= 2.0;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (decision.power(mid) < target ? lo : hi) = mid;
    }
    // hi always reaches the target, so n runs do decide a change of this size.
    return hi * standardError(sigma, runsPerArm);
}

double GatePower::sigmaOfCv(double cv) {
    if (!(cv >= 0.0))
        return std::numeric_limits<double>::quiet_NaN();
    return std::sqrt(std::log1p(cv * cv));
}

double GatePower::cvOfSigma(double sigma) {
    if (!(sigma >= 0.0))
        return std::numeric_limits<double>::quiet_NaN();
    return std::sqrt(std::expm1(sigma * sigma));
}

} // namespace tierscope
