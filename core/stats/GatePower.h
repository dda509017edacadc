#pragma once

#include <optional>

namespace tierscope {

// How many runs per arm a gate needs, for a Welch interval on the logs of the run values.
// sigma is the standard deviation of log(run value) within an arm (about the between-run CV).
// trueLog = log of the true ratio B/A; gateLog = log of the gate's threshold as a ratio
// (log(0.75) for "<= -25%", log(1.29) for ">= +29%").
//
// The figures are exact (up to quadrature, about 1e-5) for log-normal run values with the same
// sigma on both arms: they average over the Welch-Satterthwaite dof the comparison actually
// computes from the two sample variances (between n - 1 and 2n - 2), not a fixed 2n - 2, which
// would overstate the power of a 3-run arm by about ten points.
struct GatePower {
    // The probability that the two-sided `confidence` interval of log(B/A), with n runs on each
    // arm (equal variances; Welch's dof is at most 2n - 2, see above), lies wholly on the true
    // side of gateLog: the gate is decided (it passes when the truth passes, fails when it fails).
    // 0 when trueLog == gateLog (there is no true side), sigma is not finite and positive, a log
    // is not finite, runsPerArm < 2 or confidence is outside (0, 1).
    static double power(double sigma, double trueLog, double gateLog, int runsPerArm,
                        double confidence = 0.95);
    // The smallest n >= 2 per arm with power >= target; nullopt when trueLog == gateLog, sigma
    // is not finite/positive, or none up to maxRuns; also when target or confidence is outside
    // (0, 1) or a log is not finite.
    static std::optional<int> runsPerArm(double sigma, double trueLog, double gateLog,
                                         double target = 0.8, double confidence = 0.95,
                                         int maxRuns = 1000);
    // The smallest |trueLog - gateLog| that n runs per arm decide with the target power: a true
    // change nearer the gate's threshold than this cannot be decided within that budget.
    // 0 when even a vanishing change reaches the target (target <= (1 - confidence) / 2); NaN
    // when sigma is not finite and positive, runsPerArm < 2, or target or confidence is outside
    // (0, 1).
    static double decidableMargin(double sigma, int runsPerArm, double target = 0.8,
                                  double confidence = 0.95);
    // A coefficient of variation to the sd of the logs of a log-normal quantity and back:
    // sigma = sqrt(log(1 + cv^2)), cv = sqrt(exp(sigma^2) - 1). NaN for a negative or NaN
    // argument.
    static double sigmaOfCv(double cv);
    static double cvOfSigma(double sigma);
};

} // namespace tierscope
