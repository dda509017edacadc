#include "ui/ChartPoints.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

QList<QPointF> ChartPoints::fromBuckets(const std::vector<Bucket>& buckets, std::int64_t originNs,
                                        double scale) {
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(buckets.size() * 2));
    for (const auto& b : buckets) {
        const double x = static_cast<double>(b.tNs + b.widthNs / 2 - originNs) / 1e9;
        points.append({x, b.min / scale});
        if (b.max != b.min)
            points.append({x, b.max / scale});
    }
    return points;
}

double ChartPoints::niceTop(double value) {
    if (!(value > 0))
        return 1.0;
    const double step = value / 4;
    const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
    for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * magnitude >= step)
            return 4 * m * magnitude;
    return 40 * magnitude;
}

double ChartPoints::peak(const std::vector<Bucket>& buckets) {
    double top = 0.0;
    for (const auto& b : buckets)
        top = std::max(top, b.max);
    return top;
}

bool ChartPoints::valueAt(const std::vector<Bucket>& buckets, std::int64_t originNs, double x,
                          double& value) {
    const auto t = originNs + static_cast<std::int64_t>(std::llround(x * 1e9));
    auto it =
        std::lower_bound(buckets.begin(), buckets.end(), t,
                         [](const Bucket& b, std::int64_t v) { return b.tNs + b.widthNs <= v; });
    const Bucket* best = nullptr;
    std::int64_t distance = 0;
    for (auto c : {it, it == buckets.begin() ? buckets.end() : it - 1}) {
        if (c == buckets.end())
            continue;
        const std::int64_t mid = c->tNs + c->widthNs / 2;
        const std::int64_t d = std::llabs(mid - t);
        if (d <= std::max<std::int64_t>(c->widthNs, 1) * 2 && (!best || d < distance)) {
            best = &*c;
            distance = d;
        }
    }
    if (!best)
        return false;
    value = best->mean();
    return true;
}

} // namespace tierscope
