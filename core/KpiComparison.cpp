#include "core/KpiComparison.h"

namespace tierscope {

KpiComparison::Verdict KpiComparison::verdict() const {
    if (!interval)
        return Verdict::NoInterval;
    if (!interval->excludes(0.0))
        return Verdict::NoSignificantDifference;
    const bool bLower = interval->hi < 0;
    return bLower == lowerIsBetter ? Verdict::BetterB : Verdict::BetterA;
}

const char* KpiComparison::verdictText(Verdict v) {
    switch (v) {
    case Verdict::BetterB:
        return "B";
    case Verdict::BetterA:
        return "A";
    case Verdict::NoSignificantDifference:
        return "no significant difference";
    case Verdict::NoInterval:
        break;
    }
    return "n/a";
}

} // namespace tierscope
