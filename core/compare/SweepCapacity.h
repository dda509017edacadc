#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonResult.h"
#include "core/compare/KpiComparison.h"
#include "core/compare/SweepCurve.h"
#include "core/model/RunInfo.h"

#include <cstddef>
#include <optional>
#include <string>

namespace tierscope {

// A load sweep's capacity, read off one side's stored runs: each point's KPIs over its
// measured runs (KpiLevel), whether all the sweep's SLOs hold there (SloBound::allHold, the
// rule `sweep` and a plan's bisection use), and the bracket the points give the highest load
// where they hold (SloSearch over the measured points). Two sides' capacities are compared on
// their brackets, the one figure every view prints (max_rate_at_slo, max_concurrency_at_slo).
//
// The change B/A - 1 has the estimate holdsAt_B / holdsAt_A - 1 and the conservative interval
// [holdsAt_B / failsAt_A - 1, failsAt_B / holdsAt_A - 1]: each side's true capacity lies in
// [holdsAt, failsAt), so no ratio outside it is consistent with the points' verdicts. A side
// whose SLOs hold at its highest point has no failsAt (the capacity is above it): the upper
// end is +infinity when that side is B, the lower end -100 % when it is A. A side whose SLOs
// fail at its lowest point has no capacity: nothing is compared and a gate is not judged.
class SweepCapacity {
  public:
    struct Bracket {
        std::optional<double> holdsAt; // the highest point that holds below the first failure
        std::optional<double> failsAt; // the lowest point that fails
    };

    // A run of a load sweep (`sweep`, or a plan's): its parameters carry sweep_mode.
    static bool isSweepRun(const RunInfo& run);
    // The side's measured runs as a sweep, ascending load, its series the side's label:
    // nullopt unless all are sweep runs of one mode, and of more than one point or with SLOs
    // (a plan's sweep). One point of `sweep` without SLOs stays an ordinary side.
    static std::optional<SweepCurve> curve(const ComparisonSide& side);
    static Bracket bracket(const SweepCurve& curve);
    // "max_rate_at_slo" or "max_concurrency_at_slo".
    static const char* kpi(const std::string& mode);
    // B's capacity against A's, with `runsA` and `runsB` measured runs behind them; nullopt
    // (with `why`) when a side has no capacity or the sweeps have no SLOs.
    static std::optional<KpiComparison> compare(const SweepCurve& a, const SweepCurve& b,
                                                std::size_t runsA, std::size_t runsB,
                                                std::string& why);
    // "holds at 4 req/s, fails at 6 req/s", or why there is no bracket.
    static std::string describe(const Bracket& bracket, const std::string& unit);

    // For ComparisonBuilder: when a side is a sweep, both must be, over the same mode and
    // SLOs (else ComparisonBuilder::UsageError). Then the curves go into `in`, the per-run KPIs
    // are left out (they differ by point: the curves hold them per point), and the capacity
    // row is added. Returns nullopt when neither side is a sweep, else why the capacity was
    // not compared ("" when it was).
    static std::optional<std::string> addTo(const ComparisonSide& a, const ComparisonSide& b,
                                            ComparisonResult& in);
};

} // namespace tierscope
