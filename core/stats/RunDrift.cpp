#include "core/stats/RunDrift.h"

#include "core/stats/StudentT.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

std::optional<RunDrift::Trend> RunDrift::of(const std::vector<double>& times,
                                            const std::vector<double>& values, double alpha) {
    const std::size_t n = values.size();
    if (times.size() != n || n < 3)
        return std::nullopt;
    std::vector<double> logs(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(times[i]) || !std::isfinite(values[i]) || !(values[i] > 0.0))
            return std::nullopt;
        logs[i] = std::log(values[i]);
    }
    const auto [tMin, tMax] = std::minmax_element(times.begin(), times.end());
    const double span = *tMax - *tMin;
    if (!(span > 0.0))
        return std::nullopt;

    // Centred sums: start times are epoch seconds (1e9) while the spread is minutes, and the
    // uncentred sums would lose the spread to cancellation.
    const double count = static_cast<double>(n);
    double tMean = 0.0, yMean = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        tMean += (times[i] - *tMin) / count;
        yMean += logs[i] / count;
    }
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dt = times[i] - *tMin - tMean;
        sxx += dt * dt;
        sxy += dt * (logs[i] - yMean);
    }
    const bool flat = std::all_of(logs.begin(), logs.end(), [&](double y) { return y == logs[0]; });
    // A constant series is flat by construction; its mean may still differ from its values in
    // the last bit, which must not read as a slope.
    const double slope = flat ? 0.0 : sxy / sxx;
    double ssr = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = logs[i] - yMean - slope * (times[i] - *tMin - tMean);
        ssr += r * r;
    }
    const double dof = static_cast<double>(n - 2);
    const double se = std::sqrt(ssr / dof / sxx);

    Trend trend;
    trend.runs = static_cast<int>(n);
    trend.change = std::expm1(slope * span);
    if (slope == 0.0)
        trend.pValue = 1.0;
    else if (se == 0.0)
        trend.pValue = 0.0;
    else // The lower tail rather than 1 - cdf: it keeps its precision for tiny p.
        trend.pValue = std::min(1.0, 2.0 * StudentT::cdf(-std::abs(slope / se), dof));
    trend.significant = trend.pValue < alpha;
    return trend;
}

} // namespace tierscope
