#include "core/stats/TInterval.h"

#include "core/stats/StudentT.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace tierscope {

namespace {

struct Moments {
    double mean = 0.0;
    double variance = 0.0; // sample variance, n - 1
    double n = 0.0;
};

Moments moments(const std::vector<double>& v) {
    Moments m;
    m.n = static_cast<double>(v.size());
    m.mean = std::accumulate(v.begin(), v.end(), 0.0) / m.n;
    for (const double x : v)
        m.variance += (x - m.mean) * (x - m.mean);
    m.variance /= m.n - 1.0;
    return m;
}

bool finite(const std::vector<double>& v) {
    for (const double x : v)
        if (!std::isfinite(x))
            return false;
    return true;
}

} // namespace

std::optional<TInterval> TInterval::welch(const std::vector<double>& a,
                                          const std::vector<double>& b, double confidence) {
    if (a.size() < 2 || b.size() < 2 || !finite(a) || !finite(b))
        return std::nullopt;
    const Moments ma = moments(a), mb = moments(b);
    const double va = ma.variance / ma.n, vb = mb.variance / mb.n;
    TInterval out;
    out.estimate = mb.mean - ma.mean;
    const double se = std::sqrt(va + vb);
    // Welch-Satterthwaite; with no spread on either side it falls back to the pooled count.
    out.dof = va + vb > 0
                  ? (va + vb) * (va + vb) / (va * va / (ma.n - 1.0) + vb * vb / (mb.n - 1.0))
                  : ma.n + mb.n - 2.0;
    const double t = StudentT::quantile(0.5 + confidence / 2.0, out.dof);
    out.interval = {out.estimate - t * se, out.estimate + t * se};
    return out;
}

std::optional<TInterval> TInterval::welchRatio(const std::vector<double>& a,
                                               const std::vector<double>& b, double confidence) {
    std::vector<double> la, lb;
    for (const auto& [from, to] : {std::pair{&a, &la}, std::pair{&b, &lb}})
        for (const double x : *from) {
            if (!(x > 0.0))
                return std::nullopt;
            to->push_back(std::log(x));
        }
    auto out = welch(la, lb, confidence);
    if (!out)
        return std::nullopt;
    out->estimate = std::exp(out->estimate);
    out->interval = {std::exp(out->interval.lo), std::exp(out->interval.hi)};
    return out;
}

std::optional<TInterval> TInterval::mean(const std::vector<double>& values, double confidence) {
    if (values.size() < 2 || !finite(values))
        return std::nullopt;
    const Moments m = moments(values);
    TInterval out;
    out.estimate = m.mean;
    out.dof = m.n - 1.0;
    const double half =
        StudentT::quantile(0.5 + confidence / 2.0, out.dof) * std::sqrt(m.variance / m.n);
    out.interval = {m.mean - half, m.mean + half};
    return out;
}

double TInterval::wilsonUpper(double hits, double trials) {
    if (trials <= 0)
        return 1.0;
    constexpr double z = 1.959963984540054; // the normal distribution's 97.5 % point
    const double p = hits / trials;
    const double centre = p + z * z / (2 * trials);
    const double spread = z * std::sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials));
    return std::min(1.0, (centre + spread) / (1 + z * z / trials));
}

} // namespace tierscope
