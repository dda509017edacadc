#pragma once

#include "core/compare/KpiComparison.h"
#include "core/model/RunInfo.h"
#include "core/analysis/RunTimeline.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// One side of an A/B comparison: a run, a list of runs, the runs of a session, or an arm.
struct ComparisonSide {
    std::string label;
    std::vector<RunInfo> runs;
    std::vector<std::vector<StoredRequest>> requests; // per run, same order
    std::vector<RunTimeline> timelines;               // per run, same order; may be empty
};

// Compares B against A with the run as the unit: every KPI is computed per measured run
// (RunKpis) and gets one Welch interval over those run values (95 %, or the per-look level of
// the sequential design the runs carry: SequentialDesign), on the ratio scale for
// positive quantities and on the difference scale otherwise (KpiComparison says which and
// why). With fewer than two measured runs on a side there is no interval. Warm-up, failed and
// cancelled runs are never measurements.
class Comparison {
  public:
    static std::vector<KpiComparison> compare(const ComparisonSide& a, const ComparisonSide& b);
    // The runs left out of the side, one line each: "run 7 (warmup)".
    static std::vector<std::string> excluded(const ComparisonSide& side);
    // The validity checks stored with the side's measured runs (summary "validity": engine
    // identity, ...) that did not pass: "run 9: engine_identity fail: ...".
    struct Check {
        bool failed = false; // fail; else warn
        std::string text;
    };
    static std::vector<Check> validity(const ComparisonSide& side);
    // Everything the measured runs' summaries say about how they were made, one row each, in
    // run order: validity checks ("pass", "warn", "fail"), cache-reset steps ("ok", "failed")
    // and a cold-recovery populate phase ("info").
    struct RunCheck {
        std::int64_t run = 0;
        std::string name; // "engine_identity", "reset drop_caches", "populate phase"
        std::string status;
        std::string detail; // with its numbers
    };
    static std::vector<RunCheck> runChecks(const ComparisonSide& side);
    // What else the measured runs' summaries say about how they were made: checks that passed
    // (with their numbers), each cache-reset step's outcome, a cold-recovery populate phase.
    static std::vector<std::string> checks(const ComparisonSide& side);
    // The workload variants among the side's measured runs ("load@c8", ...).
    static std::set<std::string> variants(const ComparisonSide& side);
    // The time share (0..1) of each bottleneck class, averaged over the measured runs that
    // have a timeline.
    static std::map<BottleneckClassifier::Class, double> shares(const ComparisonSide& side);
};

} // namespace tierscope
