#pragma once

#include <map>
#include <string>
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
    // One histogram family's buckets per series: the key names its labels other than le.
    using Series = std::map<std::string, Buckets>;

    static double compute(double q, Buckets buckets);
    // Per-bucket increase between two scrapes of the same histogram (matched by le). A bucket
    // that went down means a counter reset: the later scrape is then the whole interval.
    static Buckets delta(const Buckets& before, const Buckets& after);
    // sum by (le) of each series' delta, as Prometheus computes sum by (le) (rate(x_bucket[..])):
    // one series that was reset (a restarted engine) counts from zero on its own instead of
    // turning every series' history into the interval, or hiding the reset in the sum. A series
    // in only one of the scrapes counts nothing, as rate() needs two samples of it (so one that
    // reappears after a gap never brings its whole history into the interval).
    static Buckets summedDelta(const Series& before, const Series& after);
};

} // namespace tierscope
