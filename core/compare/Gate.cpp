#include "core/compare/Gate.h"

#include "core/compare/KpiComparison.h"
#include "core/compare/RunKpis.h"
#include "core/stats/GatePower.h"
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
    const bool brackets = d && d->armLevel;
    const std::string interval =
        brackets ? ", interval of the brackets [" : ", " + k.intervalName() + " [";
    Result out = kind == Kind::Ratio
                     ? decide(r.lo, r.hi,
                              "B/A " + factor(point) + interval + factor(r.lo) + ", " +
                                  factor(r.hi) + "], " + runCounts(k))
                     : decide(r.lo - 1, r.hi - 1,
                              "change " + KpiComparison::percent(point - 1) + interval +
                                  KpiComparison::percent(r.lo - 1) + ", " +
                                  KpiComparison::percent(r.hi - 1) + "], " + runCounts(k));
    if (out.verdict == Verdict::Inconclusive && !brackets)
        needed(k, out);
    return out;
}

std::optional<double> Gate::thresholdLog() const {
    const double ratio = kind == Kind::Ratio ? threshold : 1.0 + threshold;
    if (!(ratio > 0) || !std::isfinite(ratio))
        return std::nullopt;
    return std::log(ratio);
}

// What an undecided gate needs: the runs per arm that would decide it with 80 % power if the
// change and the run-to-run spread seen so far are the truth (GatePower), at this comparison's
// interval level. Said as "about": both are estimates from the runs at hand.
void Gate::needed(const KpiComparison& k, Result& out) const {
    const auto spread = k.logSpread();
    const auto gateLog = thresholdLog();
    const double point = k.ratio();
    if (!spread || !gateLog || !(point > 0))
        return;
    const std::size_t have = std::min(k.countA, k.countB);
    const double margin = std::abs(std::log(point) - *gateLog);
    const auto n = GatePower::runsPerArm(*spread, std::log(point), *gateLog, 0.8, k.confidence,
                                         kMaxRunsPerArm);
    char text[200];
    if (!n || margin < 1e-9) {
        std::snprintf(text, sizeof text,
                      "; undecided: the change seen is within %.1f %% of the gate's threshold, "
                      "which more than %d runs per arm would not decide",
                      (std::exp(margin) - 1) * 100, kMaxRunsPerArm);
        out.reason += text;
        return;
    }
    out.runsPerArm = std::max<int>(*n, static_cast<int>(have) + 1);
    std::snprintf(text, sizeof text,
                  "; undecided: need about %d runs per arm (%d more) at the change and spread "
                  "seen (CV %.1f %%)",
                  *out.runsPerArm, *out.runsPerArm - static_cast<int>(have),
                  GatePower::cvOfSigma(*spread) * 100);
    out.reason += text;
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
    return "undecided";
}

} // namespace tierscope
