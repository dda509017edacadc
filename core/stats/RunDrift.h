#pragma once

#include <optional>
#include <vector>

namespace tierscope {

// A trend in one arm's run values over the experiment's time: the page cache or an array warming,
// a thermal throttle. Least squares of log(value) on the run's start time; the slope's t-test
// with n - 2 degrees of freedom.
//
// On the log scale a drift reads as a fraction whatever the KPI's unit, and the log-normal run
// noise a latency shows becomes the constant-variance normal noise the t-test assumes. A linear
// drift in the value is fitted as an exponential one; over a drift of tens of percent the two
// differ by far less than run noise.
struct RunDrift {
    struct Trend {
        // exp(slope * (last time - first time)) - 1: the fitted change from the first run to
        // the last, a fraction. "First" and "last" are the earliest and latest time, whatever
        // the order the runs are given in.
        double change = 0.0;
        double pValue = 1.0; // two-sided
        int runs = 0;
        bool significant = false; // pValue < alpha
    };
    // times: each run's start (seconds, any origin); values: its KPI value, same order. nullopt
    // with fewer than 3 usable runs, a non-positive or non-finite value, or all times equal.
    // Every run must be usable: one bad value (or time, or a length mismatch) gives nullopt
    // rather than a trend over the others, since a failed run in the middle of a drift is
    // itself the news. A perfect fit (no residual) has pValue 0 when it has a slope and 1
    // when it is flat.
    static std::optional<Trend> of(const std::vector<double>& times,
                                   const std::vector<double>& values, double alpha = 0.05);
};

} // namespace tierscope
