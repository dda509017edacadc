#pragma once

namespace tierscope {

// A two-sided confidence interval.
struct Interval {
    double lo = 0.0;
    double hi = 0.0;

    bool contains(double v) const { return lo <= v && v <= hi; }
    bool excludes(double v) const { return v < lo || v > hi; }
};

} // namespace tierscope
