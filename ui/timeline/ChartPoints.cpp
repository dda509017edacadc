#include "ui/timeline/ChartPoints.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace tierscope {

namespace {

// In whole nanoseconds, as valueAt looks buckets up.
std::int64_t middle(const Bucket& b) {
    return b.tNs + b.widthNs / 2;
}

} // namespace

std::optional<std::int64_t> ChartPoints::gapThreshold(const std::vector<Bucket>& buckets) {
    if (buckets.size() < 3)
        return std::nullopt;
    std::vector<std::int64_t> spacing;
    spacing.reserve(buckets.size() - 1);
    for (std::size_t i = 1; i < buckets.size(); ++i)
        spacing.push_back(middle(buckets[i]) - middle(buckets[i - 1]));
    const auto mid = spacing.begin() + static_cast<std::ptrdiff_t>(spacing.size() / 2);
    std::nth_element(spacing.begin(), mid, spacing.end());
    if (*mid <= 0)
        return std::nullopt;
    return kGapFactor * *mid;
}

QList<QPointF> ChartPoints::fromBuckets(const std::vector<Bucket>& buckets, std::int64_t originNs,
                                        double scale) {
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(buckets.size()) * 2);
    const auto gap = gapThreshold(buckets);
    for (std::size_t i = 0; i < buckets.size(); ++i) {
        const auto& b = buckets[i];
        const double x = static_cast<double>(middle(b) - originNs) / 1e9;
        if (gap && i > 0 && middle(b) - middle(buckets[i - 1]) > *gap)
            points.append({x, std::numeric_limits<double>::quiet_NaN()}); // a break, not a line
        points.append({x, b.min / scale});
        if (b.max != b.min)
            points.append({x, b.max / scale});
    }
    return points;
}

double ChartPoints::peak(const std::vector<Bucket>& buckets) {
    double top = 0.0;
    for (const auto& b : buckets)
        top = std::max(top, b.max);
    return top;
}

namespace {

// How far from its middle a bucket still answers for: half its width, or the gap to the closer
// of its neighbours, whichever is more.
std::int64_t reach(const std::vector<Bucket>& buckets, std::size_t i) {
    std::int64_t r = buckets[i].widthNs / 2;
    std::optional<std::int64_t> gap;
    if (i > 0)
        gap = middle(buckets[i]) - middle(buckets[i - 1]);
    if (i + 1 < buckets.size()) {
        const std::int64_t next = middle(buckets[i + 1]) - middle(buckets[i]);
        gap = gap ? std::min(*gap, next) : next;
    }
    return gap ? std::max(r, *gap) : r;
}

} // namespace

bool ChartPoints::valueAt(const std::vector<Bucket>& buckets, std::int64_t originNs, double x,
                          double toleranceS, double& value) {
    if (buckets.empty() || !std::isfinite(x))
        return false;
    const auto t = originNs + static_cast<std::int64_t>(std::llround(x * 1e9));
    const auto tolerance = static_cast<std::int64_t>(std::llround(std::max(0.0, toleranceS) * 1e9));
    // The first bucket whose middle is at or after t, and the one before it.
    const auto it = std::lower_bound(buckets.begin(), buckets.end(), t,
                                     [](const Bucket& b, std::int64_t v) { return middle(b) < v; });
    std::optional<std::size_t> best;
    std::int64_t distance = 0;
    for (auto c : {it, it == buckets.begin() ? buckets.end() : it - 1}) {
        if (c == buckets.end())
            continue;
        const auto i = static_cast<std::size_t>(c - buckets.begin());
        const std::int64_t d = std::llabs(middle(*c) - t);
        if (d <= std::max(reach(buckets, i), tolerance) && (!best || d < distance)) {
            best = i;
            distance = d;
        }
    }
    if (!best)
        return false;
    value = buckets[*best].mean();
    return true;
}

std::vector<std::vector<Bucket>>
ChartPoints::stacked(const ChartCatalog::Chart& spec,
                     const std::vector<std::vector<Bucket>>& data) {
    std::vector<std::vector<Bucket>> out = data;
    std::map<std::int64_t, double> below;
    for (std::size_t i = 0; i < out.size() && i < spec.series.size(); ++i) {
        if (spec.series[i].stack == 0)
            continue;
        for (auto& b : out[i]) {
            if (b.count == 0)
                continue;
            // A negative part (the residual where parts overlap) lowers no band: it is 0 here.
            const double top = below[b.tNs] + std::max(0.0, b.mean());
            below[b.tNs] = top;
            b.min = b.max = top;
            b.sum = top * static_cast<double>(b.count);
        }
    }
    return out;
}

} // namespace tierscope
