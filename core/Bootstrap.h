#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace tierscope {

// Percentile bootstrap confidence intervals for the difference of a statistic between two
// samples (B minus A). Seeded, so a comparison prints the same interval every time.
class Bootstrap {
  public:
    // May reorder its argument (percentiles sort it).
    using Statistic = std::function<double(std::vector<double>&)>;
    struct Interval {
        double lo = 0.0;
        double hi = 0.0;
    };

    // nullopt when either side has fewer than two values: one value has no spread to resample.
    static std::optional<Interval> difference(const std::vector<double>& a,
                                              const std::vector<double>& b,
                                              const Statistic& statistic, std::uint64_t seed,
                                              int resamples = 2000, double confidence = 0.95);

    static Statistic mean();
    static Statistic percentile(double p); // numpy's linear interpolation
};

} // namespace tierscope
