#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonResult.h"

namespace tierscope {

// What a mean over runs hides, over the pooled requests of each side (descriptive: requests
// share their run, so no interval is claimed and no verdict changes): which side is faster in
// most requests (Cliff's delta, RequestDistribution), and TTFT modes, since cache hits and
// misses make it bimodal. A side with a mode the other lacks, or a majority of requests
// faster on the side whose p99 is worse, is a warning.
class DistributionCheck {
  public:
    static void addTo(const ComparisonSide& a, const ComparisonSide& b, ComparisonResult& in);
};

} // namespace tierscope
