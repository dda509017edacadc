#pragma once

#include "app/common/ExitCode.h"
#include "core/report/ComparisonReport.h"

#include <vector>

namespace tierscope {

// compare and run end the same way: 13 when a comparison is INVALID (a run's validity check
// failed, so no gate was judged), else 11 when any gate failed, else 12 when any was
// undecided, else 0.
inline int gateExitCode(const std::vector<ComparisonResult>& comparisons) {
    bool failed = false, inconclusive = false;
    for (const auto& in : comparisons)
        if (!in.invalid.empty())
            return kExitInvalid;
    for (const auto& in : comparisons)
        for (const auto& [gate, result] : in.gates) {
            failed = failed || result.verdict == Gate::Verdict::Fail;
            inconclusive = inconclusive || result.verdict == Gate::Verdict::Inconclusive;
        }
    return failed ? kExitGateFailed : inconclusive ? kExitGateInconclusive : kExitOk;
}

} // namespace tierscope
