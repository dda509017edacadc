#pragma once

#include "core/compare/ComparisonResult.h"
#include "core/compare/KpiComparison.h"

#include <set>
#include <string>
#include <vector>

namespace tierscope {

// The one-sentence answer of an A/B comparison, for the compare view's banner and any report:
// "B is better: TTFT p50 -32 % [-35 %, -29 %], throughput +31 % [+27 %, +36 %]; G1 PASS",
// "No significant difference ...", or "INVALID: ...". It only restates the KPI verdicts
// (the KPI's one interval excludes no change) and the gate verdicts; it never judges anything
// itself.
class ComparisonVerdict {
  public:
    // How a figure or the whole comparison is coloured: by significance first, then direction.
    enum class Tone {
        Better,       // significant, B better (green)
        Worse,        // significant, A better (red)
        Changed,      // significant, but the KPI has no better direction (a time share)
        NoDifference, // the interval spans zero: noise as far as the runs can tell
        NoInterval,   // fewer than two runs a side
        Invalid,      // a failed validity check: nothing is judged
    };

    struct Result {
        std::string sentence;
        Tone tone = Tone::NoInterval;
    };

    static Tone tone(const KpiComparison& k);
    // The outcome figures the headline judges, the primary first: the gates' KPIs in gate
    // order, else TTFT p50 and throughput (a storage workload: its own time or bandwidth).
    // Only the primary names a side; the others are stated with their intervals, and every
    // other KPI is counted when it changed.
    static std::vector<const KpiComparison*> outcomes(const ComparisonResult& in);
    // notApplicable: indices into in.gates of gates on a KPI neither side measured.
    static Result of(const ComparisonResult& in, const std::set<int>& notApplicable = {});
    // "TTFT p50" for "ttft_p50"; other names unchanged.
    static std::string displayName(const std::string& kpi);
    // "-32.0 % [-35.1 %, -28.7 %]": the change of B against A and its 95 % interval on the
    // ratio scale; "+1.2 GB/s [0.3 GB/s, 2.1 GB/s]", B - A and its interval, on the difference
    // scale.
    static std::string change(const KpiComparison& k);
};

} // namespace tierscope
