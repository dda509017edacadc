#pragma once

#include "core/compare/ComparisonResult.h"

namespace tierscope {

// A trend in an arm's run values over the experiment (RunDrift): the page cache or the array
// warming, a throttle, a neighbour. ABBA ordering cancels a linear drift in the means, but not
// in the spread, and a drift comparable to the effect makes the effect a matter of when the
// runs ran. Checked on the gated KPIs (else the primary outcome); each side's trend is a check
// row, and a significant one as large as half the effect (or 2 %) is a warning.
class DriftCheck {
  public:
    static void addTo(ComparisonResult& in);
};

} // namespace tierscope
