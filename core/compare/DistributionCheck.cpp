#include "core/compare/DistributionCheck.h"

#include "core/compare/RunKpis.h"
#include "core/stats/RequestDistribution.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierscope {

namespace {

std::vector<double> pooledTtft(const ComparisonSide& side) {
    std::vector<double> out;
    for (std::size_t i = 0; i < side.runs.size() && i < side.requests.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]))
            continue;
        for (const auto& q : side.requests[i])
            if (q.ok && q.ttftS && *q.ttftS > 0)
                out.push_back(*q.ttftS);
    }
    return out;
}

std::string modesText(const std::vector<RequestDistribution::Mode>& modes) {
    std::string out;
    for (const auto& m : modes) {
        char share[32];
        std::snprintf(share, sizeof share, " (%.0f %%)", m.share * 100);
        out += (out.empty() ? "" : ", ") + UnitFormat::kpi(m.at, "s") + share;
    }
    return out;
}

// A mode of `with` far (more than 1.5x) from every mode of `without`.
const RequestDistribution::Mode* extraMode(const std::vector<RequestDistribution::Mode>& with,
                                           const std::vector<RequestDistribution::Mode>& without) {
    for (const auto& m : with) {
        const bool near = std::any_of(without.begin(), without.end(), [&](const auto& o) {
            return std::max(m.at, o.at) / std::min(m.at, o.at) < 1.5;
        });
        if (!near)
            return &m;
    }
    return nullptr;
}

} // namespace

void DistributionCheck::addTo(const ComparisonSide& a, const ComparisonSide& b,
                              ComparisonResult& in) {
    const auto ta = pooledTtft(a), tb = pooledTtft(b);
    const auto delta = RequestDistribution::cliffsDelta(ta, tb);
    if (!delta)
        return;
    // P(B < A) + half the ties: the share of request pairs in which B's TTFT is the shorter.
    const double faster = (1.0 - *delta) / 2;
    const auto modesA = RequestDistribution::modes(ta), modesB = RequestDistribution::modes(tb);
    char text[200];
    std::snprintf(text, sizeof text,
                  "TTFT over pooled requests (descriptive, requests share their run): B is "
                  "faster in %.0f %% of request pairs (Cliff's delta %+.2f, %zu / %zu requests)",
                  faster * 100, *delta, ta.size(), tb.size());
    std::string detail = text;
    if (!modesA.empty() && !modesB.empty())
        detail += "; modes A " + modesText(modesA) + ", B " + modesText(modesB);
    std::vector<std::pair<char, std::string>> warnings;
    for (const char side : {'A', 'B'}) {
        const auto* extra = side == 'A' ? extraMode(modesA, modesB) : extraMode(modesB, modesA);
        if (extra && (side == 'A' ? modesA.size() : modesB.size()) > 1)
            warnings.emplace_back(side, "TTFT has a mode at " + UnitFormat::kpi(extra->at, "s") +
                                            " that the other side lacks (" + modesText({*extra}) +
                                            " of its requests): a mean or a median hides it");
    }
    // Faster in most requests, yet worse at the tail: the shape differs, not only the level.
    if (const auto* p99 = in.kpi("ttft_p99"); p99 && p99->a != 0.0) {
        const bool bMostlyFaster = faster > 0.6, aMostlyFaster = faster < 0.4;
        const auto v = p99->verdict();
        if ((bMostlyFaster && v == KpiComparison::Verdict::BetterA) ||
            (aMostlyFaster && v == KpiComparison::Verdict::BetterB)) {
            const char worse = bMostlyFaster ? 'B' : 'A';
            const auto& modes = worse == 'B' ? modesB : modesA;
            std::snprintf(text, sizeof text,
                          "%c is faster in %.0f %% of requests but its TTFT p99 "
                          "is worse (%s)",
                          bMostlyFaster ? 'B' : 'A', (bMostlyFaster ? faster : 1 - faster) * 100,
                          KpiComparison::percent(p99->relative()).c_str());
            std::string w = text;
            if (modes.size() > 1)
                w += ": a second mode at " + UnitFormat::kpi(modes.back().at, "s");
            warnings.emplace_back(worse, w);
        }
    }
    in.runChecks.emplace_back('A', Comparison::RunCheck{0, "request distribution", "info", detail});
    in.checks.push_back("A and B: all runs: " + detail);
    for (const auto& [side, w] : warnings) {
        in.warnings.push_back(std::string(1, side) + ": distribution: " + w);
        in.runChecks.emplace_back(side, Comparison::RunCheck{0, "request distribution", "warn", w});
    }
}

} // namespace tierscope
