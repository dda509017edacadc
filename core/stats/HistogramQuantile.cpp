#include "core/stats/HistogramQuantile.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tierscope {

double HistogramQuantile::compute(double q, Buckets buckets) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(q))
        return kNaN;
    if (q < 0)
        return -std::numeric_limits<double>::infinity();
    if (q > 1)
        return std::numeric_limits<double>::infinity();
    std::sort(buckets.begin(), buckets.end());
    if (buckets.size() < 2 || !std::isinf(buckets.back().first))
        return kNaN;
    for (std::size_t i = 1; i < buckets.size(); ++i)
        buckets[i].second = std::max(buckets[i].second, buckets[i - 1].second);
    const double total = buckets.back().second;
    if (!(total > 0))
        return kNaN;
    const double rank = q * total;
    std::size_t b = 0;
    while (b < buckets.size() - 1 && buckets[b].second < rank)
        ++b;
    if (b == buckets.size() - 1)
        return buckets[buckets.size() - 2].first;
    if (b == 0 && buckets[0].first <= 0)
        return buckets[0].first;
    double start = 0;
    double below = 0;
    if (b > 0) {
        start = buckets[b - 1].first;
        below = buckets[b - 1].second;
    }
    const double end = buckets[b].first;
    const double inBucket = buckets[b].second - below;
    if (inBucket <= 0)
        return end;
    return start + (end - start) * ((rank - below) / inBucket);
}

HistogramQuantile::Buckets HistogramQuantile::delta(const Buckets& before, const Buckets& after) {
    std::map<double, double> previous(before.begin(), before.end());
    Buckets out;
    out.reserve(after.size());
    for (const auto& [le, count] : after) {
        const auto it = previous.find(le);
        if (it == previous.end() || count < it->second)
            return after; // new layout or reset: the later scrape is the whole interval
        out.emplace_back(le, count - it->second);
    }
    return out;
}

HistogramQuantile::Buckets HistogramQuantile::summedDelta(const Series& before,
                                                          const Series& after) {
    std::map<double, double> byLe;
    for (const auto& [key, buckets] : after) {
        const auto it = before.find(key);
        if (it == before.end())
            continue;
        for (const auto& [le, count] : delta(it->second, buckets))
            byLe[le] += count;
    }
    return {byLe.begin(), byLe.end()};
}

} // namespace tierscope
