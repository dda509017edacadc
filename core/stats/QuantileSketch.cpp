#include "core/stats/QuantileSketch.h"

#include "core/stats/LoadSummary.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

namespace {

// Bucket i holds (gamma^(i-1), gamma^i]; its midpoint in the relative sense is within
// kRelativeError of every value in it.
const double kGamma = (1 + QuantileSketch::kRelativeError) / (1 - QuantileSketch::kRelativeError);
const double kLogGamma = std::log(kGamma);
constexpr double kSmallest = 1e-9; // below a nanosecond (in seconds or ms) counts as zero

} // namespace

QuantileSketch::QuantileSketch(std::size_t exactLimit) : m_exactLimit(exactLimit) {}

void QuantileSketch::add(double value) {
    value = std::max(0.0, value);
    ++m_count;
    const double delta = value - m_mean;
    m_mean += delta / static_cast<double>(m_count);
    m_m2 += delta * (value - m_mean);
    m_min = m_count == 1 ? value : std::min(m_min, value);
    m_max = m_count == 1 ? value : std::max(m_max, value);
    if (!m_exact) {
        addToBucket(value);
        return;
    }
    m_values.push_back(value);
    if (m_values.size() > m_exactLimit)
        toBuckets();
}

double QuantileSketch::stddev() const {
    if (m_count == 0)
        return 0.0;
    if (m_exact) { // two passes, as numpy: identical figures for runs that fit
        double var = 0;
        for (const double v : m_values)
            var += (v - m_mean) * (v - m_mean);
        return std::sqrt(var / static_cast<double>(m_count));
    }
    return std::sqrt(m_m2 / static_cast<double>(m_count));
}

double QuantileSketch::percentile(double p) const {
    if (m_count == 0)
        return 0.0;
    if (m_exact)
        return LoadSummary::percentile(m_values, p);
    // numpy's linear rule on the bucketed values: the values at ranks floor(h) and ceil(h),
    // interpolated. Each stands within kRelativeError of the value it replaces, so their
    // weighted mean stands within kRelativeError of numpy's answer, even where the two ranks
    // fall in different modes of the distribution.
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(m_count - 1);
    const auto lo = static_cast<std::int64_t>(std::floor(rank));
    const auto hi = static_cast<std::int64_t>(std::ceil(rank));
    const double low = valueAtRank(lo);
    const double high = hi == lo ? low : valueAtRank(hi);
    return low + (high - low) * (rank - static_cast<double>(lo));
}

double QuantileSketch::valueAtRank(std::int64_t rank) const {
    if (rank < m_zeros)
        return 0.0;
    std::int64_t seen = m_zeros;
    for (std::size_t i = 0; i < m_buckets.size(); ++i) {
        seen += m_buckets[i];
        if (rank < seen)
            return std::clamp(bucketValue(m_firstBucket + static_cast<int>(i)), m_min, m_max);
    }
    return m_max;
}

void QuantileSketch::toBuckets() {
    m_exact = false;
    for (const double v : m_values)
        addToBucket(v);
    std::vector<double>().swap(m_values); // give the memory back, not just the size
}

void QuantileSketch::addToBucket(double value) {
    if (value < kSmallest) {
        ++m_zeros;
        return;
    }
    const int index = bucketOf(value);
    if (m_buckets.empty()) {
        m_firstBucket = index;
        m_buckets.assign(1, 0);
    } else if (index < m_firstBucket) {
        m_buckets.insert(m_buckets.begin(), static_cast<std::size_t>(m_firstBucket - index), 0);
        m_firstBucket = index;
    } else if (index >= m_firstBucket + static_cast<int>(m_buckets.size())) {
        m_buckets.resize(static_cast<std::size_t>(index - m_firstBucket) + 1, 0);
    }
    ++m_buckets[static_cast<std::size_t>(index - m_firstBucket)];
}

int QuantileSketch::bucketOf(double value) const {
    return static_cast<int>(std::ceil(std::log(value) / kLogGamma));
}

double QuantileSketch::bucketValue(int index) const {
    // 2 gamma^i / (gamma + 1): equally far, relatively, from both edges of the bucket.
    return 2.0 * std::pow(kGamma, index) / (kGamma + 1.0);
}

} // namespace tierscope
