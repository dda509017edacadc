#pragma once

namespace tierscope {

// Student's t distribution for any real (not only integer) degrees of freedom, as Welch's
// interval needs.
class StudentT {
  public:
    // P(T <= t) for `dof` > 0 degrees of freedom.
    static double cdf(double t, double dof);
    // The t with cdf(t, dof) == p, 0 < p < 1.
    static double quantile(double p, double dof);
};

} // namespace tierscope
