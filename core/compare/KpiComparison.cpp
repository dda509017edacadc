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

std::string KpiComparison::intervalName() const {
    char text[96];
    if (looks > 0)
        std::snprintf(text, sizeof text, "%.4g %% CI (always valid over %d looks)",
                      confidence * 100, looks);
    else
        std::snprintf(text, sizeof text, "%.4g %% CI", confidence * 100);
    return text;
}

std::optional<double> KpiComparison::logSpread() const {
    if (scale != Scale::Ratio || runsA.size() + runsB.size() < 3)
        return std::nullopt;
    double squares = 0;
    for (const auto* runs : {&runsA, &runsB}) {
        if (runs->empty())
            continue;
        double mean = 0;
        for (const double x : *runs)
            mean += std::log(x);
        mean /= static_cast<double>(runs->size());
        for (const double x : *runs)
            squares += (std::log(x) - mean) * (std::log(x) - mean);
    }
    const double dof = static_cast<double>(runsA.size() + runsB.size()) - 2;
    return std::sqrt(squares / dof);
}

// On the log scale, as the floor is: an unchanged system's ratio lies in [1/(1+f), 1+f].
bool KpiComparison::withinFloor() const {
    return floor && a > 0.0 && b > 0.0 && std::abs(std::log(b / a)) < std::log1p(*floor);
}

} // namespace tierscope
