#include "core/compare/KpiComparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierscope {

std::optional<Interval> KpiComparison::relativeInterval() const {
    if (scale != Scale::Ratio || !interval)
        return std::nullopt;
    return Interval{interval->lo - 1.0, interval->hi - 1.0};
}

KpiComparison::Verdict KpiComparison::verdict() const {
    if (!interval)
        return Verdict::NoInterval;
    bool lower = false;
    if (scale == Scale::Ratio) {
        if (interval->contains(1.0))
            return Verdict::NoSignificantDifference;
        lower = interval->hi < 1.0;
    } else {
        // Sums of fractions (time shares) carry rounding noise: a difference of 1e-14 % between
        // two runs that both spent all their time in one class is no difference.
        const double noise = 1e-9 * std::max(std::abs(a), std::abs(b));
        if (interval->lo <= noise && interval->hi >= -noise)
            return Verdict::NoSignificantDifference;
        lower = interval->hi < 0;
    }
    if (!directional)
        return Verdict::Changed;
    return lower == lowerIsBetter ? Verdict::BetterB : Verdict::BetterA;
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

std::string KpiComparison::percent(double fraction) {
    // A sweep's capacity interval has an unbounded end where a side held at its highest point.
    if (std::isinf(fraction))
        return fraction > 0 ? "unbounded" : "-unbounded";
    char text[48];
    // -0.04 % prints as "-0.0 %": say no change instead of a signed zero
    const double p = std::abs(fraction) < 0.0005 ? 0.0 : fraction * 100;
    std::snprintf(text, sizeof text, "%+.1f %%", p);
    return text;
}

std::string KpiComparison::relativeText() const {
    if (a == 0.0)
        return "";
    std::string out = percent(relative());
    if (const auto r = relativeInterval())
        out += " [" + percent(r->lo) + ", " + percent(r->hi) + "]";
    return out;
}

const char* KpiComparison::meanKind() const {
    return scale == Scale::Ratio ? "geometric mean" : "mean";
}

} // namespace tierscope
