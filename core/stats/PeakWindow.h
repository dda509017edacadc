#pragma once

#include "core/model/Sample.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tierscope {

// The highest mean over any window of a fixed length (1 s for the comparison's peak bandwidth),
// from raw rate samples, so a peak means the same whatever the run's length or the store's
// decimation. Each sample is a rate over the interval since the previous sample of its series;
// several series (one per device or workload) add up where they overlap.
class PeakWindow {
  public:
    // series: each one's samples in time order. The first sample of a series covers the time
    // since `originNs` (the run's start, when its samples begin then) or, without one, only
    // starts the series. nullopt when no interval is known. A span shorter than the window gives
    // the span's mean.
    static std::optional<double> highestMean(const std::vector<std::vector<Sample>>& series,
                                             std::int64_t windowNs = 1'000'000'000,
                                             std::optional<std::int64_t> originNs = {});
};

} // namespace tierscope
