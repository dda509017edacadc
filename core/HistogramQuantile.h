#pragma once

#include <utility>
#include <vector>

namespace tierscope {

// Prometheus' histogram_quantile() over cumulative buckets (upper bound "le", count):
// linear interpolation inside the bucket that holds the rank, the lower bound of the first
// bucket taken as 0, the highest finite bound returned when the rank falls in +Inf. NaN when
// there are no observations or no +Inf bucket. Counts that go down (scrape races) are evened
// out the way Prometheus does.
class HistogramQuantile {
  public:
    using Buckets = std::vector<std::pair<double, double>>;

    static double compute(double q, Buckets buckets);
    // Per-bucket increase between two scrapes of the same histogram (matched by le). A bucket
    // that went down means a counter reset: the later scrape is then the whole interval.
    static Buckets delta(const Buckets& before, const Buckets& after);
};

} // namespace tierscope
