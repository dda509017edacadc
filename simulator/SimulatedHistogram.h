#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// One Prometheus histogram with fixed bounds, written in the text format as prometheus_client
// does (cumulative buckets, +Inf, _sum, _count).
class SimulatedHistogram {
  public:
    template <std::size_t N>
    explicit SimulatedHistogram(const std::array<double, N>& bounds)
        : m_bounds(bounds.begin(), bounds.end()), m_counts(N, 0.0) {}

    void observe(double v);
    std::string text(const char* name, const char* help, const std::string& labels) const;

  private:
    std::vector<double> m_bounds;
    std::vector<double> m_counts; // cumulative, per bound
    double m_sum = 0;
    std::int64_t m_count = 0;
};

} // namespace tierscope
