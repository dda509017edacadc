#include "core/compare/Gate.h"

#include "core/compare/KpiComparison.h"
#include "core/compare/RunKpis.h"
#include "core/stats/TInterval.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tierscope {

std::optional<Gate> Gate::parse(const std::string& text, std::string& error) {
    Gate g;
    g.text = text;
    std::size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
    };
    skip();
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        g.kpi += text[i++];
    skip();
    if (g.kpi.empty() || i + 2 > text.size() ||
        (text.compare(i, 2, "<=") != 0 && text.compare(i, 2, ">=") != 0)) {
        error = "a gate reads KPI <= VALUE or KPI >= VALUE, e.g. \"ttft_p50 <= -25%\"";
        return std::nullopt;
    }
    g.atMost = text[i] == '<';
    i += 2;
    skip();
    const char* start = text.c_str() + i;
    char* end = nullptr;
    const double value = std::strtod(start, &end);
    if (end == start || !std::isfinite(value)) {
        error = "no number after the comparison in \"" + text + "\"";
        return std::nullopt;
    }
    std::string unit(end);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back())))
        unit.pop_back();
    if (unit == "%") {
        g.kind = Kind::Relative;
        g.threshold = value / 100.0;
    } else if (unit == "x") {
        g.kind = Kind::Ratio;
        g.threshold = value;
    } else {
        error = "the threshold in \"" + text + "\" needs a unit: % (change) or x (ratio B/A)";
        return std::nullopt;
    }
    return g;
}

namespace {

std::string numbers(const char* format, double point, double lo, double hi) {
    char text[160];
    std::snprintf(text, sizeof text, format, point, lo, hi);
    return text;
}

// A ratio, or "unbounded": a sweep's capacity interval has an infinite end where a side held
// at its highest point.
std::string factor(double x) {
    if (std::isinf(x))
        return x > 0 ? "unbounded" : "-unbounded";
    char text[48];
    std::snprintf(text, sizeof text, "%.3fx", x);
    return text;
}

std::string runCounts(const KpiComparison& k) {
    return std::to_string(k.countA) + " / " + std::to_string(k.countB) + " runs";
}

} // namespace

Gate::Result Gate::judge(const KpiComparison& k) const {
    auto decide = [this](double lo, double hi, std::string reason) {
        const bool pass = atMost ? hi <= threshold : lo >= threshold;
        const bool fail = atMost ? lo > threshold : hi < threshold;
        return Result{pass   ? Verdict::Pass
                      : fail ? Verdict::Fail
                             : Verdict::Inconclusive,
                      std::move(reason)};
    };
    if (k.gateOnLevel && kind == Kind::Relative) {
        // A rate that is usually zero has no meaningful relative change: the gate bounds B.
        const auto level = TInterval::mean(k.runsB);
        if (!level)
            return {Verdict::Inconclusive, "n/a (" + std::to_string(k.countB) +
                                               " run of B: repeat the run to get an "
                                               "interval)"};
        // With no run-to-run spread (0 failures everywhere) the t-interval is a point; the
        // Wilson bound on B's pooled requests keeps the claim within what they can show.
        const double hi =
            std::max(level->interval.hi / 100, TInterval::wilsonUpper(k.failedB, k.issuedB));
        const double lo = level->interval.lo / 100;
        return decide(lo, hi,
                      numbers("B's level %.2f%%, 95%% CI [%.2f%%, %.2f%%]", level->estimate,
                              lo * 100, hi * 100) +
                          ", " + std::to_string(k.countB) + " runs");
    }
    if (k.countA < 2 || k.countB < 2)
        return {Verdict::Inconclusive,
                "n/a (" + runCounts(k) + ": repeat the runs to get an interval)"};
    if (k.scale != KpiComparison::Scale::Ratio || !k.interval)
        return {Verdict::Inconclusive,
                RunKpis::find(k.name) && RunKpis::find(k.name)->inPoints
                    ? "no ratio: a time share changes in points, not by a factor"
                    : "no ratio: a run's value is zero or negative"};
    // The very interval the table, the headline and the chart show: B/A of geometric means,
    // Welch on the logs of the run values, so A's uncertainty counts as much as B's.
    const auto& r = *k.interval;
    const double point = k.ratio();
    // A sweep's capacity interval is its brackets' (SweepCapacity), each point judged at 95 %.
    const auto* d = RunKpis::find(k.name);
    const char* interval = d && d->armLevel ? ", interval of the brackets [" : ", 95 % CI [";
    if (kind == Kind::Ratio)
        return decide(r.lo, r.hi,
                      "B/A " + factor(point) + interval + factor(r.lo) + ", " + factor(r.hi) +
                          "], " + runCounts(k));
    return decide(r.lo - 1, r.hi - 1,
                  "change " + KpiComparison::percent(point - 1) + interval +
                      KpiComparison::percent(r.lo - 1) + ", " + KpiComparison::percent(r.hi - 1) +
                      "], " + runCounts(k));
}

const char* Gate::name(Verdict v) {
    switch (v) {
    case Verdict::Pass:
        return "pass";
    case Verdict::Fail:
        return "fail";
    case Verdict::Inconclusive:
        break;
    }
    return "inconclusive";
}

} // namespace tierscope
