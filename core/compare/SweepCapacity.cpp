#include "core/compare/SweepCapacity.h"

#include "core/compare/ComparisonBuilder.h"
#include "core/compare/RunKpis.h"
#include "core/compare/SloSearch.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

using RunValues = std::vector<std::map<std::string, double>>;

nlohmann::json params(const RunInfo& run) {
    auto j = nlohmann::json::parse(run.paramsJson, nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
}

std::vector<std::string> sloTexts(const nlohmann::json& p) {
    std::vector<std::string> out;
    if (const auto it = p.find("slo"); it != p.end() && it->is_array())
        for (const auto& s : *it)
            if (s.is_string())
                out.push_back(s.get<std::string>());
    return out;
}

// One point's runs, gathered before their levels are taken.
struct Gathered {
    std::string label;
    bool grid = false;
    RunValues runs;
};

SweepCurve::Point level(double load, const Gathered& g, const std::vector<SloBound>& slos) {
    SweepCurve::Point p;
    p.label = g.label;
    p.load = load;
    // A bisection probe that landed on a grid point (it cannot, but a stored one may) is grid.
    p.probe = g.grid ? "grid" : "bisection";
    for (const auto& d : RunKpis::definitions()) {
        std::vector<double> values;
        for (const auto& run : g.runs)
            if (const auto it = run.find(d.name); it != run.end())
                values.push_back(it->second);
        if (const auto l = KpiLevel::of(values))
            p.kpis.emplace(d.name, *l);
    }
    if (!slos.empty())
        p.holds = SloBound::allHold(slos, g.runs);
    return p;
}

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

} // namespace

bool SweepCapacity::isSweepRun(const RunInfo& run) {
    const auto p = params(run);
    const auto it = p.find("sweep_mode");
    return it != p.end() && it->is_string();
}

std::optional<SweepCurve> SweepCapacity::curve(const ComparisonSide& side) {
    SweepCurve out;
    out.series = side.label;
    std::map<double, Gathered> points;
    std::vector<std::string> slos;
    bool any = false;
    for (std::size_t i = 0; i < side.runs.size(); ++i) {
        const auto& run = side.runs[i];
        if (!RunKpis::isMeasurement(run))
            continue;
        const auto p = params(run);
        const auto mode = p.find("sweep_mode");
        if (mode == p.end() || !mode->is_string() || (any && *mode != out.mode))
            return std::nullopt;
        out.mode = mode->get<std::string>();
        const auto load = p.find(out.mode == "rate" ? "rate" : "concurrency");
        if (load == p.end() || !load->is_number())
            return std::nullopt;
        if (!any)
            slos = sloTexts(p);
        any = true;
        auto& g = points[load->get<double>()];
        g.label = p.value("sweep_point", number(load->get<double>()));
        g.grid = g.grid || p.value("sweep_probe", "grid") == "grid";
        static const std::vector<StoredRequest> none;
        const RunTimeline* timeline = i < side.timelines.size() ? &side.timelines[i] : nullptr;
        g.runs.push_back(
            RunKpis::of(run, i < side.requests.size() ? side.requests[i] : none, timeline));
    }
    if (!any || (points.size() < 2 && slos.empty()))
        return std::nullopt;
    for (const auto& text : slos) {
        std::string error;
        if (auto slo = SloBound::parse(text, error))
            out.slos.push_back(std::move(*slo));
    }
    // An SLO stored by an older release that no longer parses would make a capacity of the
    // others alone: none is read then.
    if (out.slos.size() != slos.size())
        out.slos.clear();
    for (const auto& [load, g] : points)
        out.points.push_back(level(load, g, out.slos));
    return out;
}

SweepCapacity::Bracket SweepCapacity::bracket(const SweepCurve& curve) {
    std::vector<std::pair<double, bool>> verdicts;
    for (const auto& p : curve.points)
        if (p.holds)
            verdicts.emplace_back(p.load, *p.holds);
    // No probe: the bracket of the points measured, the grid's and the bisection's together.
    const auto found = SloSearch::run(verdicts, 0, curve.mode == "concurrency", {});
    return {found.holdsAt, found.failsAt};
}

const char* SweepCapacity::kpi(const std::string& mode) {
    return mode == "rate" ? "max_rate_at_slo" : "max_concurrency_at_slo";
}

std::string SweepCapacity::describe(const Bracket& b, const std::string& unit) {
    const std::string u = unit == "requests" ? "" : " " + unit;
    if (b.holdsAt && b.failsAt)
        return "holds at " + number(*b.holdsAt) + u + ", fails at " + number(*b.failsAt) + u;
    if (b.holdsAt)
        return "holds at its highest point, " + number(*b.holdsAt) + u +
               " (not reached within the grid: the capacity is above it)";
    if (b.failsAt)
        return "no capacity: the SLOs fail at its lowest point, " + number(*b.failsAt) + u;
    return "no capacity: no point was measured with SLOs";
}

std::optional<KpiComparison> SweepCapacity::compare(const SweepCurve& a, const SweepCurve& b,
                                                    std::size_t runsA, std::size_t runsB,
                                                    std::string& why) {
    const auto* d = RunKpis::find(kpi(a.mode));
    if (a.slos.empty() || b.slos.empty()) {
        why = "the sweeps have no SLOs, so no capacity";
        return std::nullopt;
    }
    const Bracket ba = bracket(a), bb = bracket(b);
    if (!ba.holdsAt || !bb.holdsAt) {
        why = std::string(!ba.holdsAt ? "A" : "B") + " has " +
              describe(!ba.holdsAt ? ba : bb, d->unit);
        return std::nullopt;
    }
    constexpr double kUnbounded = std::numeric_limits<double>::infinity();
    KpiComparison k;
    k.name = d->name;
    k.unit = d->unit;
    k.lowerIsBetter = false;
    k.scale = KpiComparison::Scale::Ratio;
    k.a = *ba.holdsAt;
    k.b = *bb.holdsAt;
    // Conservative: B's lowest possible capacity over A's highest, and the reverse. A side
    // that held at its highest point may be anywhere above it.
    k.interval = Interval{*bb.holdsAt / ba.failsAt.value_or(kUnbounded),
                          bb.failsAt.value_or(kUnbounded) / *ba.holdsAt};
    k.countA = runsA;
    k.countB = runsB;
    k.note = "A " + describe(ba, d->unit) + "; B " + describe(bb, d->unit) +
             "; the interval is the brackets' [B holds / A fails, B fails / A holds], an "
             "unbounded end where a side held at its highest point";
    return k;
}

std::optional<std::string> SweepCapacity::addTo(const ComparisonSide& a, const ComparisonSide& b,
                                                ComparisonResult& in) {
    auto ca = curve(a), cb = curve(b);
    if (!ca && !cb)
        return std::nullopt;
    auto measured = [](const ComparisonSide& s) {
        return static_cast<std::size_t>(
            std::count_if(s.runs.begin(), s.runs.end(), RunKpis::isMeasurement));
    };
    // An arm whose runs all failed (or never ran) is no other kind of side: nothing to compare.
    if (!ca || !cb) {
        const bool emptyA = !ca && measured(a) == 0, emptyB = !cb && measured(b) == 0;
        if (emptyA || emptyB) {
            in.curves.push_back(std::move(ca ? *ca : *cb));
            const std::string why = std::string(emptyA ? "A" : "B") + " has no measured run";
            in.warnings.push_back(why);
            return why;
        }
    }
    if (!ca || !cb)
        throw ComparisonBuilder::UsageError(
            std::string(ca ? "A" : "B") + " (" + (ca ? a.label : b.label) +
            ") is a load sweep and the other side is not; compare a sweep with a sweep");
    if (ca->mode != cb->mode)
        throw ComparisonBuilder::UsageError("A sweeps the " + ca->mode + " and B the " + cb->mode +
                                            "; compare sweeps of one kind");
    auto texts = [](const SweepCurve& c) {
        std::vector<std::string> out;
        for (const auto& s : c.slos)
            out.push_back(s.text);
        return out;
    };
    if (texts(*ca) != texts(*cb))
        throw ComparisonBuilder::UsageError(
            "A's and B's sweeps hold to different SLOs; capacities compare under the same SLOs");
    in.warnings.push_back(
        "A and B are load sweeps: their runs' own KPIs are not compared (runs of different "
        "points are never pooled); each point's figures are in the sweep curves, and the arms "
        "compare by " +
        std::string(kpi(ca->mode)));
    std::string why;
    if (auto k = compare(*ca, *cb, measured(a), measured(b), why))
        in.kpis.push_back(std::move(*k));
    else
        in.warnings.push_back(std::string(kpi(ca->mode)) + " not compared: " + why);
    in.curves.push_back(std::move(*ca));
    in.curves.push_back(std::move(*cb));
    return why;
}

} // namespace tierscope
