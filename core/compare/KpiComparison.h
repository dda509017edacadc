#pragma once

#include "core/stats/Interval.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One KPI of an A/B comparison. Every figure comes from run-level values, and every view (table,
// headline, bar, whisker, gate, JSON) reads the one interval below, so they cannot disagree.
//
// A positive quantity (a latency, a throughput: every run value > 0) is compared on the ratio
// scale: a and b are the geometric means of the runs, the change is b/a - 1, and the interval
// is Welch's t-interval on the logs of the run values, transformed back. Its relative interval
// cannot fall below -100 %, A's spread counts as much as B's, and a "-25 %" gate reads the same
// interval the table prints. Anything else (a time share, a failure rate, a figure where a run
// measured zero) is compared on the difference scale: arithmetic means and Welch's interval of
// b - a, in the KPI's unit, with no relative interval.
struct KpiComparison {
    // Changed: the interval excludes no-change on a KPI with no better direction (a time share).
    enum class Verdict { BetterB, BetterA, Changed, NoSignificantDifference, NoInterval };
    enum class Scale { Ratio, Difference };

    std::string name; // e.g. "ttft_p50"
    std::string unit; // SI: "s", "tok/s", "GB/s", "req/s", "%"
    bool lowerIsBetter = true;
    // false: a shift is a fact, not a gain or a loss. A bottleneck's share of the time moves
    // both ways when an arm gets faster (it finishes its storage-bound phase sooner, or idles
    // more), so the view colours it as a change, never as better or worse. Gates still use
    // lowerIsBetter.
    bool directional = true;
    bool gateOnLevel = false; // failure_rate: a % gate bounds B's level
    // For level KPIs: B's requests issued and failed, pooled over its runs, so a level gate
    // never claims more than the number of requests allows (0 of 200 failed is not 0 %).
    double issuedB = 0.0;
    double failedB = 0.0;
    std::string note; // how it was measured, when that needs saying
    Scale scale = Scale::Difference;
    double a = 0.0; // geometric mean of A's runs on the ratio scale, else the arithmetic mean
    double b = 0.0;
    std::vector<double> runsA, runsB;     // one value per measured run, in run order
    std::vector<double> startsA, startsB; // each of those runs' start, s since the epoch
    // THE 95 % interval: of b/a (a factor) on the ratio scale, of b - a (in `unit`) on the
    // difference scale. Absent with fewer than two runs on a side.
    std::optional<Interval> interval;
    std::size_t countA = 0; // measured runs behind a
    std::size_t countB = 0;
    std::string sampleKind = "runs";
    // The interval's level: 0.95, or higher at every look of an experiment that stops once its
    // gates are decided (SequentialDesign), whose looks this counts (0: a fixed design).
    double confidence = 0.95;
    int looks = 0;
    // The rig's noise floor from an A/A calibration (NoiseFloor): the half-width, as a
    // fraction, of the interval an unchanged system gives at this KPI's run counts, and the
    // between-run CV it comes from. Absent without a calibration of this KPI.
    std::optional<double> floor;
    std::optional<double> floorCv;

    double difference() const { return b - a; }
    double relative() const { return a != 0.0 ? (b - a) / a : 0.0; }
    double ratio() const { return a != 0.0 ? b / a : 0.0; }
    // The interval of the change b/a - 1, as fractions: only on the ratio scale.
    std::optional<Interval> relativeInterval() const;
    // A side is better only when the interval excludes no change (1 on the ratio scale, 0 on
    // the difference scale) and the KPI has a direction.
    Verdict verdict() const;
    static const char* verdictText(Verdict v);
    // A fraction as every view prints a change: "-25.3 %".
    static std::string percent(double fraction);
    // The change with its interval on the ratio scale, "-25.3 % [-31.0 %, -19.2 %]"; the
    // change alone on the difference scale or without an interval; "" when a is zero.
    std::string relativeText() const;
    // "geometric mean" or "mean": what a and b are.
    const char* meanKind() const;
    // "95 % CI", or "99.5 % CI (always valid over 10 looks)": what every view calls the interval.
    std::string intervalName() const;
    // The pooled standard deviation of the logs of the run values within each side (about the
    // between-run CV), with nA + nB - 2 degrees of freedom; on the ratio scale with a degree of
    // freedom, else absent.
    std::optional<double> logSpread() const;
    // The change is within the rig's noise floor (B/A within [1/(1+floor), 1+floor]): no
    // decision should rest on it.
    bool withinFloor() const;
};

} // namespace tierscope
