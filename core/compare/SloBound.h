#pragma once

#include "core/compare/KpiLevel.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// A service-level objective on one run-level KPI, an absolute bound in the KPI's own unit:
// "ttft_p99<=2s", "tpot_p99 <= 100ms", "goodput>=5", "failure_rate<=1%". KPI names are
// RunKpis' (the comparison's); a latency takes a duration (250ms, 2s, a bare number of
// seconds), a "%" KPI a number with or without "%", any other a number with or without its
// unit ("5 req/s").
//
// It holds at a set of runs when the whole 95 % run-level interval (KpiLevel) lies within the
// bound: for "<=" its upper end, for ">=" its lower end. A point whose interval straddles the
// bound is not shown to hold, so a capacity read from it is one the runs can defend.
struct SloBound {
    std::string text;
    std::string kpi;
    std::string unit; // the KPI's unit, e.g. "s"
    bool atMost = true;
    double threshold = 0.0; // in `unit`

    // nullopt (with `error` set) when malformed or naming no KPI.
    static std::optional<SloBound> parse(const std::string& text, std::string& error);
    // nullopt without an interval (fewer than two runs).
    std::optional<bool> holds(const KpiLevel& level) const;
    // The end of the interval the bound is judged on.
    std::optional<double> judgedEnd(const KpiLevel& level) const;
    // Whether every SLO is shown to hold at a set of runs (each run's RunKpis values), the
    // one rule `sweep` and a plan's sweep bisect on and `compare` reads capacities by: a KPI
    // missing from one of the runs (no request completed there) or without an interval does
    // not hold. nullopt without runs.
    static std::optional<bool> allHold(const std::vector<SloBound>& slos,
                                       const std::vector<std::map<std::string, double>>& runs);
};

} // namespace tierscope
