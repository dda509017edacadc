#include "core/compare/KpiComparison.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

KpiComparison::Verdict KpiComparison::verdict() const {
    if (!interval)
        return Verdict::NoInterval;
    // Sums of fractions (time shares) carry rounding noise: a difference of 1e-14 % between two
    // runs that both spent all their time in one class is no difference.
    const double noise = 1e-9 * std::max(std::abs(a), std::abs(b));
    if (interval->lo <= noise && interval->hi >= -noise)
        return Verdict::NoSignificantDifference;
    if (!directional)
        return Verdict::Changed;
    const bool bLower = interval->hi < 0;
    return bLower == lowerIsBetter ? Verdict::BetterB : Verdict::BetterA;
}

const char* KpiComparison::verdictText(Verdict v) {
    switch (v) {
    case Verdict::BetterB:
        return "B";
    case Verdict::BetterA:
        return "A";
    case Verdict::Changed:
        return "changed";
    case Verdict::NoSignificantDifference:
        return "no significant difference";
    case Verdict::NoInterval:
        break;
    }
    return "n/a";
}

} // namespace tierscope
