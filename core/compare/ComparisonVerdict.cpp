#include "core/compare/ComparisonVerdict.h"

#include "core/compare/RunKpis.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace tierscope {

namespace {

// Without gates, the figures a user's outcome is judged on, first present first: a serving
// run's TTFT and throughput, a storage workload's own result. The first is the primary.
// The KPIs with a headline rank, in rank order.
const std::vector<std::string>& defaultOutcomes() {
    static const auto order = [] {
        std::vector<const RunKpis::Definition*> ranked;
        for (const auto& d : RunKpis::definitions())
            if (d.headlineRank > 0)
                ranked.push_back(&d);
        std::sort(ranked.begin(), ranked.end(),
                  [](const auto* x, const auto* y) { return x->headlineRank < y->headlineRank; });
        std::vector<std::string> names;
        for (const auto* d : ranked)
            names.push_back(d->name);
        return names;
    }();
    return order;
}
constexpr std::size_t kDefaultOutcomes = 2;

std::string named(const KpiComparison& k) {
    return ComparisonVerdict::displayName(k.name) + " " + ComparisonVerdict::change(k);
}

std::string join(const std::vector<const KpiComparison*>& kpis) {
    std::string out;
    for (const auto* k : kpis)
        out += (out.empty() ? "" : ", ") + named(*k);
    return out;
}

std::string gates(const ComparisonResult& in, const std::set<int>& notApplicable, bool* failed) {
    std::string out;
    for (std::size_t i = 0; i < in.gates.size(); ++i) {
        const auto v = in.gates[i].second.verdict;
        const auto& needed = in.gates[i].second.runsPerArm;
        std::string word = notApplicable.count(static_cast<int>(i)) ? "n/a"
                           : v == Gate::Verdict::Pass               ? "PASS"
                           : v == Gate::Verdict::Fail               ? "FAIL"
                           : needed ? "UNDECIDED (about " + std::to_string(*needed) +
                                          " runs per arm would decide it)"
                                    : "UNDECIDED";
        if (v == Gate::Verdict::Fail)
            *failed = true;
        out += (i ? ", G" : "G") + std::to_string(i + 1) + " " + word;
    }
    return out;
}

} // namespace

ComparisonVerdict::Tone ComparisonVerdict::tone(const KpiComparison& k) {
    switch (k.verdict()) {
    case KpiComparison::Verdict::BetterB:
        return Tone::Better;
    case KpiComparison::Verdict::BetterA:
        return Tone::Worse;
    case KpiComparison::Verdict::Changed:
        return Tone::Changed;
    case KpiComparison::Verdict::NoSignificantDifference:
        return Tone::NoDifference;
    case KpiComparison::Verdict::NoInterval:
        break;
    }
    return Tone::NoInterval;
}

std::string ComparisonVerdict::displayName(const std::string& kpi) {
    const auto* d = RunKpis::find(kpi);
    return d ? d->displayName : kpi;
}

std::string ComparisonVerdict::change(const KpiComparison& k) {
    // The KPI's one interval, as the table and the gates print it.
    if (k.scale == KpiComparison::Scale::Ratio && k.a != 0)
        return k.relativeText();
    // A difference of percentages is in points, not a relative change.
    const bool points = k.unit == "%";
    auto value = [&](double v) {
        if (points) {
            char text[32];
            std::snprintf(text, sizeof text, "%+.1f", v);
            return std::string(text);
        }
        return (v >= 0 ? "+" : "") + UnitFormat::kpi(v, k.unit);
    };
    std::string out = value(k.difference()) + (points ? " pts" : "");
    if (k.interval)
        out += " [" + value(k.interval->lo) + ", " + value(k.interval->hi) + "]";
    return out;
}

std::vector<const KpiComparison*> ComparisonVerdict::outcomes(const ComparisonResult& in) {
    std::vector<const KpiComparison*> out;
    auto add = [&](const std::string& name) {
        const auto* k = in.kpi(name);
        if (k && k->directional && std::find(out.begin(), out.end(), k) == out.end())
            out.push_back(k);
    };
    for (const auto& [gate, result] : in.gates)
        add(gate.kpi);
    if (!out.empty())
        return out;
    for (const auto& name : defaultOutcomes())
        if (out.size() < kDefaultOutcomes)
            add(name);
    return out;
}

ComparisonVerdict::Result ComparisonVerdict::of(const ComparisonResult& in,
                                                const std::set<int>& notApplicable) {
    if (!in.invalid.empty()) {
        std::string why;
        for (const auto& line : in.invalid)
            why += (why.empty() ? "" : "; ") + line;
        return {"INVALID, gates not judged: " + why, Tone::Invalid};
    }
    const auto judged = outcomes(in);
    // The primary outcome alone names a side, so an A/A comparison names one in 5 % of
    // comparisons, not in 5 % per figure. The other outcomes are stated with their intervals.
    std::vector<const KpiComparison*> better, worse, level;
    for (std::size_t i = 1; i < judged.size(); ++i) {
        const auto t = tone(*judged[i]);
        (t == Tone::Better ? better : t == Tone::Worse ? worse : level).push_back(judged[i]);
    }
    std::size_t othersChanged = 0;
    bool anyInterval = false;
    for (const auto& k : in.kpis) {
        const auto t = tone(k);
        anyInterval |= t != Tone::NoInterval;
        const bool outcome = std::find(judged.begin(), judged.end(), &k) != judged.end();
        othersChanged += !outcome && (t == Tone::Better || t == Tone::Worse || t == Tone::Changed);
    }
    Result r;
    const KpiComparison* primary = judged.empty() ? nullptr : judged.front();
    const Tone first = primary ? tone(*primary) : Tone::NoInterval;
    if (in.kpis.empty()) {
        r = {"Nothing to compare: no KPI was measured on both sides", Tone::NoInterval};
    } else if (!anyInterval || (primary && first == Tone::NoInterval)) {
        r = {"No interval yet: fewer than two measured runs a side, repeat the runs",
             Tone::NoInterval};
    } else if (!primary) {
        r = {"No figure of merit was measured on both sides", Tone::NoDifference};
    } else if (first == Tone::Better && !worse.empty()) {
        r = {"Mixed: B is better on " + join({primary}) + "; A is better on " + join(worse),
             Tone::Worse};
    } else if (first == Tone::Worse && !better.empty()) {
        r = {"Mixed: A is better on " + join({primary}) + "; B is better on " + join(better),
             Tone::Worse};
    } else if (first == Tone::Better) {
        better.insert(better.begin(), primary);
        r = {"B is better: " + join(better), Tone::Better};
    } else if (first == Tone::Worse) {
        worse.insert(worse.begin(), primary);
        r = {"A is better (B is worse): " + join(worse), Tone::Worse};
    } else {
        level.insert(level.begin(), primary);
        r = {"No significant difference in " + join(level), Tone::NoDifference};
        level.clear();
        // A secondary outcome alone does not name a side: it is stated, with its direction.
        for (const auto* k : better)
            r.sentence += "; " + named(*k) + " (B better, not the primary figure)";
        for (const auto* k : worse)
            r.sentence += "; " + named(*k) + " (A better, not the primary figure)";
    }
    if (r.tone == Tone::Better || r.tone == Tone::Worse)
        for (const auto* k : level)
            r.sentence += "; no significant difference in " + named(*k);
    if (othersChanged > 0 && r.tone != Tone::NoInterval)
        r.sentence += "; " + std::to_string(othersChanged) + " other figure" +
                      (othersChanged == 1 ? "" : "s") + " changed (see the table)";
    // The primary figure against the rig's own noise, where a calibration measured it.
    if (primary && primary->floor && primary->a != 0.0 && r.tone != Tone::NoInterval)
        r.sentence += "; " + displayName(primary->name) + " " +
                      KpiComparison::percent(primary->relative()) +
                      (primary->withinFloor() ? " is within this rig's noise, floor +-"
                                              : " is beyond this rig's noise floor +-") +
                      KpiComparison::percent(*primary->floor).substr(1);
    bool failed = false;
    if (const auto g = gates(in, notApplicable, &failed); !g.empty())
        r.sentence += "; " + g;
    if (failed && r.tone != Tone::Worse)
        r.tone = Tone::Worse;
    return r;
}

} // namespace tierscope
