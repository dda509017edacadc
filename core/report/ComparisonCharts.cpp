#include "core/report/ComparisonCharts.h"

#include "core/compare/RunKpis.h"
#include "core/report/CapacityChart.h"
#include "core/report/SvgChart.h"

#include <algorithm>

namespace tierscope {

namespace {

constexpr const char* kColorA = "#1f77b4";
constexpr const char* kColorB = "#e8710a";
constexpr std::size_t kRunsPerSide = 6; // more lines than this is a tangle, not a chart

SvgChart::Series cdf(const ComparisonSide& side, const std::string& name, const char* color,
                     int width) {
    std::vector<double> v;
    for (std::size_t i = 0; i < side.requests.size() && i < side.runs.size(); ++i)
        if (RunKpis::isMeasurement(side.runs[i]))
            for (const auto& r : side.requests[i])
                if (r.ok && r.ttftS)
                    v.push_back(*r.ttftS * 1e3);
    std::sort(v.begin(), v.end());
    SvgChart::Series s{name + " (" + std::to_string(v.size()) + " requests)", color, {}, false};
    // At most two points per pixel column, whatever the number of requests.
    const std::size_t step = std::max<std::size_t>(1, v.size() / (2 * std::max(width, 1)));
    for (std::size_t i = 0; i < v.size(); i += step)
        s.points.emplace_back(v[i], 100.0 * static_cast<double>(i + 1) / v.size());
    if (!v.empty())
        s.points.emplace_back(v.back(), 100.0);
    return s;
}

std::string timelines(const ComparisonSide& a, const ComparisonSide& b, SvgChart& chart) {
    std::vector<std::string> names;
    std::vector<SvgChart::Panel> panels;
    auto addSide = [&](const ComparisonSide& side, const char* tag, const char* color, bool dash) {
        std::size_t used = 0;
        for (std::size_t i = 0; i < side.runs.size() && i < side.timelines.size(); ++i) {
            if (!RunKpis::isMeasurement(side.runs[i]) || used == kRunsPerSide)
                continue;
            ++used;
            for (const auto& l : side.timelines[i].lines) {
                const auto it = std::find(names.begin(), names.end(), l.name);
                if (it == names.end()) {
                    names.push_back(l.name);
                    panels.push_back({l.name + " (" + l.unit + ")", {}});
                }
                auto& panel = panels[static_cast<std::size_t>(
                    std::find(names.begin(), names.end(), l.name) - names.begin())];
                panel.series.push_back(
                    {std::string(tag) + " run " + std::to_string(side.runs[i].id), color, l.points,
                     dash});
            }
        }
    };
    addSide(a, "A", kColorA, false);
    addSide(b, "B", kColorB, true);
    // A flat zero (no writes in a read workload) takes room and says nothing.
    std::erase_if(panels, [](const SvgChart::Panel& p) {
        for (const auto& s : p.series)
            for (const auto& pt : s.points)
                if (pt.second != 0)
                    return false;
        return true;
    });
    return chart.lines("seconds since run start", panels);
}

} // namespace

std::vector<ComparisonCharts::Kind> ComparisonCharts::all() {
    return {Kind::TtftCdf, Kind::KpiBars, Kind::Timelines, Kind::Bottlenecks};
}

const char* ComparisonCharts::name(Kind k) {
    switch (k) {
    case Kind::TtftCdf:
        return "ttft-cdf";
    case Kind::KpiBars:
        return "kpi-bars";
    case Kind::Timelines:
        return "timelines";
    case Kind::Bottlenecks:
        break;
    }
    return "bottlenecks";
}

const char* ComparisonCharts::title(Kind k) {
    switch (k) {
    case Kind::TtftCdf:
        return "TTFT distribution (CDF)";
    case Kind::KpiBars:
        return "Change of B against A, with 95 % intervals";
    case Kind::Timelines:
        return "Timelines, aligned at run start";
    case Kind::Bottlenecks:
        break;
    }
    return "Bottleneck time shares";
}

std::optional<ComparisonCharts::Kind> ComparisonCharts::parse(const std::string& text) {
    for (const auto k : all())
        if (text == name(k))
            return k;
    return std::nullopt;
}

std::string ComparisonCharts::render(Kind kind, const ComparisonSide& a, const ComparisonSide& b,
                                     const std::vector<KpiComparison>& kpis, int width, int height,
                                     const SvgChart::Style& style) {
    SvgChart chart(width, height, title(kind), style);
    switch (kind) {
    case Kind::TtftCdf: {
        SvgChart::Panel p{"requests (%)", {}};
        for (auto s : {cdf(a, "A", kColorA, width), cdf(b, "B", kColorB, width)})
            if (!s.points.empty())
                p.series.push_back(std::move(s));
        return chart.lines("TTFT (ms)", p.series.empty() ? std::vector<SvgChart::Panel>{}
                                                         : std::vector<SvgChart::Panel>{p});
    }
    case Kind::KpiBars: {
        std::vector<SvgChart::Bar> bars;
        for (const auto& k : kpis) {
            if (k.a == 0)
                continue; // no relative change from zero
            // Coloured by the KPI's verdict; the whisker is the same interval, of the change on
            // the ratio scale. A difference-scale KPI has no relative interval: no whisker.
            const auto verdict = k.verdict();
            SvgChart::Bar bar{k.name, k.relative() * 100, std::nullopt,
                              verdict == KpiComparison::Verdict::BetterB   ? "#2ca02c"
                              : verdict == KpiComparison::Verdict::BetterA ? "#d62728"
                              : verdict == KpiComparison::Verdict::Changed ? "#1f77b4"
                                                                           : "#999999"};
            if (const auto r = k.relativeInterval())
                bar.error = {r->lo * 100, r->hi * 100};
            bar.runs = static_cast<int>(std::min(k.countA, k.countB));
            bars.push_back(bar);
        }
        return chart.bars("B vs A (%)", bars);
    }
    case Kind::Timelines:
        return timelines(a, b, chart);
    case Kind::Bottlenecks:
        break;
    }
    std::vector<SvgChart::Stack> stacks;
    for (const auto& [tag, side] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
        const auto shares = Comparison::shares(*side);
        if (shares.empty())
            continue;
        SvgChart::Stack s{tag, {}};
        for (const auto c : BottleneckClassifier::all())
            if (const auto it = shares.find(c); it != shares.end() && it->second > 0)
                s.parts.emplace_back(BottleneckClassifier::name(c), it->second);
        stacks.push_back(std::move(s));
    }
    std::vector<std::pair<std::string, std::string>> colors;
    for (const auto c : BottleneckClassifier::all())
        colors.emplace_back(BottleneckClassifier::name(c), BottleneckClassifier::color(c));
    return chart.stacks(stacks, colors);
}

void ComparisonCharts::attach(ComparisonResult& result, const ComparisonSide& a,
                              const ComparisonSide& b, int width, int height,
                              const SvgChart::Style& style) {
    for (const auto kind : all())
        result.charts.push_back(
            {name(kind), title(kind), render(kind, a, b, result.kpis, width, height, style)});
    attachCapacity(result, result.curves, width, height, style); // sides that are sweeps
}

namespace {

std::vector<const SweepCurve*> pointersTo(const std::vector<SweepCurve>& curves) {
    std::vector<const SweepCurve*> out;
    for (const auto& c : curves)
        out.push_back(&c);
    return out;
}

} // namespace

std::string ComparisonCharts::capacityTitle(const std::vector<SweepCurve>& curves,
                                            const std::string& y, bool tab) {
    const auto axes = CapacityChart::axesOf(pointersTo(curves), {{}, y});
    const auto* d = RunKpis::find(axes.y);
    return "Throughput vs " + (d ? d->displayName : axes.y) + (tab ? "" : " (95 % intervals)");
}

std::string ComparisonCharts::capacity(const std::vector<SweepCurve>& curves, int width, int height,
                                       const std::string& x, const std::string& y,
                                       const SvgChart::Style& style) {
    const auto axes = CapacityChart::axesOf(pointersTo(curves), {x, y});
    // The comparison's colours for A and B; a third sweep (none today) gets its own.
    static const char* const colors[] = {kColorA, kColorB, "#2ca02c", "#9467bd", "#8c564b"};
    std::vector<CapacityChart::Series> series;
    for (std::size_t i = 0; i < curves.size(); ++i) {
        std::string name = curves[i].series;
        if (curves.size() == 2) // the sides, named as every other view names them
            name = std::string(i == 0 ? "A" : "B") + (name.empty() ? "" : ": " + name);
        series.push_back({name.empty() ? "sweep" : name, colors[i % 5], &curves[i]});
    }
    return CapacityChart(width, height, capacityTitle(curves, axes.y), style).render(series, axes);
}

void ComparisonCharts::attachCapacity(ComparisonResult& result,
                                      const std::vector<SweepCurve>& curves, int width, int height,
                                      const SvgChart::Style& style) {
    if (curves.empty())
        return;
    result.charts.push_back({kCapacity, capacityTitle(curves, {}, true),
                             capacity(curves, width, height, {}, {}, style)});
}

} // namespace tierscope
