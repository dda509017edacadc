#pragma once

#include "core/stats/Interval.h"

#include <optional>
#include <vector>

namespace tierscope {

// Student t confidence intervals over run-level values: each value is one run's KPI, so the
// interval is only as narrow as the run-to-run spread allows.
struct TInterval {
    double estimate = 0.0; // the mean (one sample) or the difference of means (B - A)
    Interval interval;
    double dof = 0.0; // degrees of freedom (Welch-Satterthwaite for two samples)

    // Welch's interval of mean(b) - mean(a): unequal variances, any sizes >= 2.
    static std::optional<TInterval> welch(const std::vector<double>& a,
                                          const std::vector<double>& b, double confidence = 0.95);
    // Welch's interval on the logs, transformed back: the ratio of geometric means B/A and its
    // interval. nullopt when a value is not positive.
    static std::optional<TInterval> welchRatio(const std::vector<double>& a,
                                               const std::vector<double>& b,
                                               double confidence = 0.95);
    // The upper end of the 95 % Wilson score interval of a proportion `hits` / `trials`, as a
    // fraction; 1 when there were no trials.
    static double wilsonUpper(double hits, double trials);
    // The interval of one sample's mean.
    static std::optional<TInterval> mean(const std::vector<double>& values,
                                         double confidence = 0.95);
};

} // namespace tierscope
