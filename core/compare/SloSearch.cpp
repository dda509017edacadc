#include "core/compare/SloSearch.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

SloSearch::Result SloSearch::run(std::vector<std::pair<double, bool>> grid, int steps, bool integer,
                                 const Probe& probe) {
    std::sort(grid.begin(), grid.end());
    Result out;
    for (const auto& [point, holds] : grid) {
        if (out.failsAt) {
            if (holds)
                out.holdsAbove.push_back(point);
        } else if (holds) {
            out.holdsAt = point;
        } else {
            out.failsAt = point;
        }
    }
    if (!out.reached())
        return out;
    for (int i = 0; i < steps; ++i) {
        const double lo = *out.holdsAt, hi = *out.failsAt;
        const double mid = integer ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
        if (mid <= lo || mid >= hi)
            break; // adjacent whole numbers: nothing left between them
        const auto holds = probe(mid);
        if (!holds)
            break;
        out.bisected.push_back(mid);
        (*holds ? out.holdsAt : out.failsAt) = mid;
    }
    return out;
}

} // namespace tierscope
