#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tierscope {

// Mean, population std and linear (numpy) percentiles of a stream of non-negative values in
// bounded memory. Up to `exactLimit` values are kept and the answers are exact; past that the
// values move into logarithmic buckets whose width bounds a percentile's relative error by
// kRelativeError (numpy's interpolation between the two neighbouring ranks is kept, so the
// bound holds between the modes of a multimodal distribution too), while count, mean and std
// stay exact (Welford). A 10-minute soak at 4,000
// streams makes millions of inter-token gaps: keeping them all is what made RSS grow.
class QuantileSketch {
  public:
    static constexpr double kRelativeError = 0.0005;
    static constexpr std::size_t kDefaultExactLimit = 1 << 16;

    explicit QuantileSketch(std::size_t exactLimit = kDefaultExactLimit);

    void add(double value);
    std::int64_t count() const { return m_count; }
    bool exact() const { return m_exact; }
    double mean() const { return m_count > 0 ? m_mean : 0.0; }
    double stddev() const;             // population, as numpy's default
    double percentile(double p) const; // 0 when empty

  private:
    void toBuckets();
    void addToBucket(double value);
    int bucketOf(double value) const;
    double bucketValue(int index) const;
    double valueAtRank(std::int64_t rank) const; // of the sorted values, from 0

    std::size_t m_exactLimit;
    bool m_exact = true;
    std::vector<double> m_values;
    std::int64_t m_count = 0;
    double m_mean = 0, m_m2 = 0, m_min = 0, m_max = 0;
    std::int64_t m_zeros = 0;            // values too small for a bucket (gaps of 0 s)
    int m_firstBucket = 0;               // index of m_buckets[0]
    std::vector<std::int64_t> m_buckets; // grown to span the smallest and largest value seen
};

} // namespace tierscope
