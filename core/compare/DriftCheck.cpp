#include "core/compare/DriftCheck.h"

#include "core/compare/ComparisonVerdict.h"
#include "core/stats/RunDrift.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierscope {

namespace {

std::vector<const KpiComparison*> checked(const ComparisonResult& in) {
    std::vector<const KpiComparison*> out;
    for (const auto* k : ComparisonVerdict::outcomes(in))
        if (k->scale == KpiComparison::Scale::Ratio)
            out.push_back(k);
    if (in.gates.empty() && out.size() > 1)
        out.resize(1); // without gates, the primary figure alone: each test is a 5 % false alarm
    return out;
}

} // namespace

void DriftCheck::addTo(ComparisonResult& in) {
    for (const auto* k : checked(in))
        for (const char side : {'A', 'B'}) {
            const auto& values = side == 'A' ? k->runsA : k->runsB;
            const auto& starts = side == 'A' ? k->startsA : k->startsB;
            const auto trend = RunDrift::of(starts, values);
            if (!trend)
                continue;
            char text[240];
            std::snprintf(text, sizeof text,
                          "%s %s %.1f %% from its first run to its last (%d runs, trend p = %.3f)",
                          k->name.c_str(), trend->change >= 0 ? "rose" : "fell",
                          std::abs(trend->change) * 100, trend->runs, trend->pValue);
            const double effect = k->a != 0.0 ? std::abs(k->relative()) : 0.0;
            const bool large = std::abs(trend->change) >= std::max(0.5 * effect, 0.02);
            const bool warn = trend->significant && large;
            std::string detail = text;
            if (warn) {
                detail += ": a drift comparable to the change (" +
                          KpiComparison::percent(k->relative()) +
                          "); the page cache, the array or the engine warmed or cooled over "
                          "the experiment";
                in.warnings.push_back(std::string(1, side) + ": drift: " + detail);
            }
            in.runChecks.emplace_back(
                side, Comparison::RunCheck{0, "drift " + k->name, warn ? "warn" : "info", detail});
            if (!warn) // a warning is listed with the warnings already
                in.checks.push_back(std::string(1, side) + ": all runs: drift: " + detail);
        }
}

} // namespace tierscope
