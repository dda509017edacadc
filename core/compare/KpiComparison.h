#pragma once

#include "core/stats/Interval.h"
#include "core/stats/TInterval.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One KPI of an A/B comparison. Every figure comes from run-level values: a and b are the
// means over each side's measured runs of that run's KPI (its p50 TTFT, its throughput), and
// the intervals are Welch t-intervals over those runs.
struct KpiComparison {
    // Changed: the interval excludes zero on a KPI with no better direction (a time share).
    enum class Verdict { BetterB, BetterA, Changed, NoSignificantDifference, NoInterval };

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
    double a = 0.0;
    double b = 0.0;
    std::vector<double> runsA, runsB; // one value per measured run, in run order
    std::optional<Interval> interval; // of b - a, 95 %
    std::optional<TInterval> ratioCi; // B/A of geometric means, 95 %, on the log scale
    std::size_t countA = 0;           // measured runs behind a
    std::size_t countB = 0;
    std::string sampleKind = "runs";

    double difference() const { return b - a; }
    double relative() const { return a != 0.0 ? (b - a) / a : 0.0; }
    double ratio() const { return a != 0.0 ? b / a : 0.0; }
    // A side is better only when the interval of B - A excludes zero (and the KPI has a
    // direction).
    Verdict verdict() const;
    static const char* verdictText(Verdict v);
};

} // namespace tierscope
