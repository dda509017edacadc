#include "core/report/CapacityChart.h"

#include "core/compare/RunKpis.h"
#include "core/report/SvgChart.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tierscope {

namespace {

constexpr double kLeft = 76;
constexpr double kRight = 24;
constexpr double kLegendTop = 38;
constexpr double kLegendRow = 20;
constexpr double kCharWidth = 6.6;  // DejaVu Sans at 12 px, an average glyph
constexpr double kLabelWidth = 6.2; // at the point labels' 11 px
constexpr const char* kSloColor = "#c62828";
constexpr double kLogSpan = 25;

// A point as drawn: where it sits, in the KPIs' own units, and its intervals.
struct Placed {
    const SweepCurve::Point* point = nullptr;
    double x = 0, y = 0;
    std::optional<Interval> xi, yi;
};

// The plot's domain (KPI units) and its pixel box; y grows upwards.
// A latency on a log axis where the points span more than kLogSpan: past the knee TTFT grows
// tenfold, and on a linear axis every point that meets the SLO would lie flat on the x axis.
struct Frame {
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
    double left = 0, right = 1, top = 0, bottom = 1;
    bool logY = false;
    // An interval's end below the axis (a mean's t-interval can reach under zero) stops at it.
    double px(double v) const { return left + (std::max(v, x0) - x0) / (x1 - x0) * (right - left); }
    double py(double v) const {
        const double share = logY ? std::log(std::max(v, y0) / y0) / std::log(y1 / y0)
                                  : (std::max(v, y0) - y0) / (y1 - y0);
        return bottom - share * (bottom - top);
    }
};

std::string nameOf(const std::string& kpi) {
    const auto* d = RunKpis::find(kpi);
    return d ? d->displayName : kpi;
}

std::string unitOf(const std::string& kpi) {
    const auto* d = RunKpis::find(kpi);
    return d ? d->unit : "";
}

std::string figure(double v, const std::string& unit) {
    return UnitFormat::kpi(v, unit);
}

std::string intervalText(const std::optional<Interval>& i, const std::string& unit) {
    return i ? " [" + figure(i->lo, unit) + ", " + figure(i->hi, unit) + "]" : " (no interval)";
}

std::vector<Placed> placed(const SweepCurve& curve, const std::string& name,
                           const CapacityChart::Axes& axes, std::vector<std::string>& missing) {
    std::vector<const SweepCurve::Point*> points;
    for (const auto& p : curve.points)
        points.push_back(&p);
    // Joined in load order, whatever order the points were measured in (bisection last).
    std::stable_sort(points.begin(), points.end(),
                     [](const auto* a, const auto* b) { return a->load < b->load; });
    std::vector<Placed> out;
    for (const auto* p : points) {
        const auto x = p->kpis.find(axes.x), y = p->kpis.find(axes.y);
        if (x == p->kpis.end() || y == p->kpis.end() || !std::isfinite(x->second.estimate) ||
            !std::isfinite(y->second.estimate)) {
            missing.push_back(name + " " + p->label);
            continue;
        }
        out.push_back(
            {p, x->second.estimate, y->second.estimate, x->second.interval, y->second.interval});
    }
    return out;
}

// The marker of series `index`: circles, then squares, then diamonds, so the arms differ in
// shape as well as in colour. Hollow where the SLOs do not hold.
std::string marker(std::size_t index, double x, double y, const std::string& color, bool hollow,
                   const SvgStyle& look, const std::string& title = {}) {
    const std::string fill = hollow ? look.background : color;
    const std::string style = " fill=\"" + SvgChart::escape(fill) + "\" stroke=\"" +
                              SvgChart::escape(color) + "\" stroke-width=\"" +
                              (hollow ? "2" : "1") + "\"";
    const std::string tip =
        title.empty() ? "/>\n" : "><title>" + SvgChart::escape(title) + "</title>";
    const auto n = SvgChart::num;
    switch (index % 3) {
    case 0:
        return "<circle class=\"marker\" cx=\"" + n(x) + "\" cy=\"" + n(y) + "\" r=\"4.5\"" +
               style + tip + (title.empty() ? "" : "</circle>\n");
    case 1:
        return "<rect class=\"marker\" x=\"" + n(x - 4.2) + "\" y=\"" + n(y - 4.2) +
               "\" width=\"8.4\" height=\"8.4\"" + style + tip + (title.empty() ? "" : "</rect>\n");
    default:
        return "<polygon class=\"marker\" points=\"" + n(x) + "," + n(y - 5.5) + " " + n(x + 5.5) +
               "," + n(y) + " " + n(x) + "," + n(y + 5.5) + " " + n(x - 5.5) + "," + n(y) + "\"" +
               style + tip + (title.empty() ? "" : "</polygon>\n");
    }
}

// A whisker from lo to hi with caps, horizontal or vertical; lo and hi in pixels.
std::string whisker(const char* cls, bool horizontal, double at, double lo, double hi,
                    const std::string& color) {
    // Lighter than the curve and the markers, which carry the estimate.
    const std::string paint =
        "stroke=\"" + SvgChart::escape(color) + "\" stroke-width=\"1.3\" stroke-opacity=\"0.6\"";
    const std::string style = "class=\"" + std::string(cls) + "\" " + paint;
    if (horizontal)
        return SvgChart::line(lo, at, hi, at, style.c_str()) +
               SvgChart::line(lo, at - 4, lo, at + 4, paint.c_str()) +
               SvgChart::line(hi, at - 4, hi, at + 4, paint.c_str());
    return SvgChart::line(at, lo, at, hi, style.c_str()) +
           SvgChart::line(at - 4, lo, at + 4, lo, paint.c_str()) +
           SvgChart::line(at - 4, hi, at + 4, hi, paint.c_str());
}

std::string tooltip(const std::string& series, const Placed& p, const CapacityChart::Axes& axes,
                    bool slos) {
    const auto& k = p.point->kpis;
    std::string t = series + ", " + p.point->label + " (" + p.point->probe +
                    "): " + nameOf(axes.x) + " " + figure(p.x, unitOf(axes.x)) +
                    intervalText(p.xi, unitOf(axes.x)) + ", " + nameOf(axes.y) + " " +
                    figure(p.y, unitOf(axes.y)) + intervalText(p.yi, unitOf(axes.y)) + ", " +
                    std::to_string(k.at(axes.y).runs) + " runs";
    if (!p.xi || !p.yi)
        t += "; no interval: fewer than two runs, so no bars";
    if (slos)
        t += !p.point->holds   ? "; SLOs not judged"
             : *p.point->holds ? "; SLOs hold"
                               : "; SLOs not shown to hold";
    return t;
}

// The SLOs of every curve, once each.
std::vector<SloBound> slosOf(const std::vector<CapacityChart::Series>& series) {
    std::vector<SloBound> out;
    for (const auto& s : series)
        for (const auto& slo : s.curve->slos)
            if (std::none_of(out.begin(), out.end(), [&](const SloBound& o) {
                    return o.kpi == slo.kpi && o.atMost == slo.atMost &&
                           o.threshold == slo.threshold;
                }))
                out.push_back(slo);
    return out;
}

// At most `most` characters, the cut marked; never inside a UTF-8 sequence.
std::string shortened(const std::string& text, std::size_t most) {
    if (text.size() <= most)
        return text;
    std::size_t cut = most > 3 ? most - 3 : 0;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return text.substr(0, cut) + "...";
}

// A legend item's width: its swatch and its text.
double itemWidth(const std::string& text) {
    return 44 + kCharWidth * static_cast<double>(text.size());
}

struct Legend {
    std::string svg;
    double height = 0;
};

// The series, then what a hollow marker means; wrapped into rows that fit the width.
Legend legend(const std::vector<CapacityChart::Series>& series,
              const std::vector<std::vector<Placed>>& placedPoints, bool slos, double width,
              const SvgStyle& look) {
    Legend out;
    double x = kLeft, y = kLegendTop;
    auto place = [&](const std::string& text) {
        if (x > kLeft && x + itemWidth(text) > width - kRight)
            x = kLeft, y += kLegendRow;
        const double at = x;
        x += itemWidth(text) + 10;
        return at;
    };
    for (std::size_t i = 0; i < series.size(); ++i) {
        std::size_t bare = 0;
        for (const auto& p : placedPoints[i])
            bare += !p.xi || !p.yi;
        std::string note;
        if (bare > 0)
            note = " (" + std::to_string(bare) + (bare == 1 ? " point" : " points") +
                   " without interval)";
        // A name longer than the row is cut (the point's title has it whole), its note kept.
        const auto room =
            static_cast<std::size_t>(std::max(8.0, (width - kLeft - kRight - 44) / kCharWidth - 1));
        const std::string text =
            shortened(series[i].name, room > note.size() + 8 ? room - note.size() : 8) + note;
        const double at = place(text);
        const std::string stroke =
            "stroke=\"" + SvgChart::escape(series[i].color) + "\" stroke-width=\"1.6\"";
        out.svg += SvgChart::line(at, y + 6, at + 28, y + 6, stroke.c_str());
        out.svg += marker(i, at + 14, y + 6, series[i].color, false, look);
        out.svg += SvgChart::text(at + 34, y + 10, text);
    }
    if (slos) {
        for (const bool hollow : {false, true}) {
            const std::string text = hollow ? "SLOs not shown to hold" : "SLOs hold";
            const double at = place(text);
            out.svg += marker(0, at + 14, y + 6, look.axis, hollow, look);
            out.svg += SvgChart::text(at + 34, y + 10, text);
        }
    }
    out.height = y - kLegendTop + kLegendRow;
    return out;
}

// The figure of a bound in its unit, trimmed: "2 s", "100 ms", "5 req/s", "1 %".
std::string boundFigure(double v, const std::string& unit) {
    char text[64];
    if (unit == "s")
        std::snprintf(text, sizeof text, std::abs(v) < 1 ? "%g ms" : "%g s",
                      std::abs(v) < 1 ? std::round(v * 1e9) / 1e6 : v);
    else
        std::snprintf(text, sizeof text, unit.empty() ? "%g" : "%g %s", v, unit.c_str());
    return text;
}

// Seconds read better as milliseconds below one second, as the KPI tables print them; on a
// log axis that reaches under 100 ms, too (so its ticks read 20, 50, 100, not 0.02, 0.05).
double scaleOf(const std::string& unit, const Frame& f, bool y, std::string& shown) {
    shown = unit;
    const double lo = y ? f.y0 : f.x0, hi = y ? f.y1 : f.x1;
    if (unit == "s" && (hi < 1.0 || (y && f.logY && lo < 0.1 && hi < 20))) {
        shown = "ms";
        return 1e3;
    }
    return 1.0;
}

std::string axisLabel(const std::string& kpi, const std::string& unit, bool log = false) {
    std::string in = unit;
    if (log)
        in += in.empty() ? "log scale" : ", log scale";
    return nameOf(kpi) + (in.empty() ? "" : " (" + in + ")");
}

// 1, 2 and 5 of each decade across [lo, hi] (both above zero); only the decades where that
// would crowd the axis.
std::vector<double> logTicks(double lo, double hi) {
    std::vector<double> out, decades;
    for (int e = int(std::floor(std::log10(lo))); e <= int(std::ceil(std::log10(hi))); ++e)
        for (const double m : {1.0, 2.0, 5.0}) {
            const double v = m * std::pow(10.0, e);
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) {
                out.push_back(v);
                if (m == 1.0)
                    decades.push_back(v);
            }
        }
    if (out.size() > 12 && decades.size() >= 2)
        return decades;
    return out.size() >= 2 ? out : SvgChart::ticks(lo, hi, 4);
}

// Grid lines, ticks and axis titles, in the shown unit (`xs`, `ys` per KPI unit).
std::string grid(const Frame& f, double xs, double ys, const std::string& xLabel,
                 const std::string& yLabel, int width, const SvgStyle& look) {
    const std::string lines = "stroke=\"" + SvgChart::escape(look.grid) + "\"";
    const std::string axis = "stroke=\"" + SvgChart::escape(look.axis) + "\"";
    std::string out;
    const double h = f.bottom - f.top;
    const auto yTicks = f.logY
                            ? logTicks(f.y0 * ys, f.y1 * ys)
                            : SvgChart::ticks(f.y0 * ys, f.y1 * ys, std::clamp(int(h / 60), 2, 10));
    for (const double t : yTicks) {
        out += SvgChart::line(f.left, f.py(t / ys), f.right, f.py(t / ys), lines.c_str());
        out += SvgChart::text(f.left - 6, f.py(t / ys) + 4, SvgChart::tickText(t), "end");
    }
    const int count = std::clamp(int((f.right - f.left) / 100), 2, 12);
    for (const double t : SvgChart::ticks(f.x0 * xs, f.x1 * xs, count)) {
        out += SvgChart::line(f.px(t / xs), f.top, f.px(t / xs), f.bottom,
                              (lines + " stroke-opacity=\"0.6\"").c_str());
        out += SvgChart::text(f.px(t / xs), f.bottom + 16, SvgChart::tickText(t), "middle");
    }
    out += SvgChart::line(f.left, f.bottom, f.right, f.bottom, axis.c_str());
    out += SvgChart::line(f.left, f.top, f.left, f.bottom, axis.c_str());
    const double mid = (f.top + f.bottom) / 2;
    out += SvgChart::text(16, mid, yLabel, "middle",
                          (" transform=\"rotate(-90 16 " + SvgChart::num(mid) + ")\"").c_str());
    out += SvgChart::text((f.left + width - kRight) / 2.0, f.bottom + 34, xLabel, "middle");
    return out;
}

// Lines of at most the width's characters, broken at spaces.
std::vector<std::string> wrapped(const std::string& text, int width) {
    const auto most =
        static_cast<std::size_t>(std::max(20.0, (width - kLeft - kRight) / kLabelWidth));
    std::vector<std::string> out;
    std::string line;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto space = text.find(' ', at + 1);
        const std::string word =
            text.substr(at, space == std::string::npos ? std::string::npos : space - at);
        if (!line.empty() && line.size() + word.size() > most) {
            out.push_back(line);
            line = word.substr(word.front() == ' ' ? 1 : 0);
        } else {
            line += word;
        }
        at = space == std::string::npos ? text.size() : space;
    }
    if (!line.empty())
        out.push_back(line);
    return out;
}

// Under the x axis: the SLOs judged on another KPI, and the points that cannot be placed
// (absent is not zero: a point without the KPI is named, never drawn at 0).
std::vector<std::string> footnotes(const std::vector<std::string>& notes,
                                   const std::vector<std::string>& missing,
                                   const CapacityChart::Axes& axes, int width) {
    std::vector<std::string> out;
    auto add = [&](std::string line, const std::vector<std::string>& items, const char* sep) {
        for (const auto& item : items)
            line += " " + item + (&item == &items.back() ? "" : sep);
        for (auto& l : wrapped(line, width))
            out.push_back(std::move(l));
    };
    if (!notes.empty())
        add("SLOs also judged (hollow markers), not on these axes:", notes, ";");
    if (!missing.empty())
        add("Not drawn, without " + nameOf(axes.x) + " or " + nameOf(axes.y) + ":", missing, ",");
    return out;
}

// Its text sits above the line at the right end, or below it where the plot's top is near.
std::string sloLine(const Frame& f, const SloBound& slo) {
    const double y = f.py(slo.threshold);
    std::string out = "<g class=\"slo\" data-kpi=\"" + SvgChart::escape(slo.kpi) +
                      "\" data-threshold=\"" + SvgChart::exact(slo.threshold) + "\">\n";
    out += SvgChart::line(
        f.left, y, f.right, y,
        (std::string("stroke=\"") + kSloColor + "\" stroke-width=\"1.5\" stroke-dasharray=\"7 4\"")
            .c_str());
    const double textY = y - 6 < f.top + 12 ? y + 15 : y - 6;
    out +=
        SvgChart::text(f.right - 4, textY, CapacityChart::sloText(slo), "end",
                       (std::string(" fill=\"") + kSloColor + "\" font-weight=\"bold\"").c_str());
    return out + "</g>\n";
}

struct Box {
    double x0, y0, x1, y1;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// The point's label beside it, at the first corner (right-above, right-below, left-above,
// left-below; the second series tries below first) that stays inside the plot and clear of
// the labels placed before it. A label that repeats one close by (both arms at "rate 1") is
// left out: the marker's title names the point all the same.
std::string pointLabel(const Frame& f, std::size_t index, double x, double y,
                       const std::string& label, std::vector<std::pair<Box, std::string>>& taken,
                       const SvgStyle& look) {
    const double w = kLabelWidth * static_cast<double>(label.size()), h = 11;
    struct Corner {
        bool left, below;
    };
    // One label serves two arms' markers that sit together at one load.
    const Box near{x - 40, y - 30, x + 40, y + 30};
    for (const auto& [box, text] : taken)
        if (text == label && box.overlaps(near))
            return {};
    const bool second = index % 2 == 1;
    const Corner corners[] = {{false, second}, {false, !second}, {true, second}, {true, !second}};
    std::optional<Box> fallback;
    for (const auto& c : corners) {
        const double x0 = c.left ? x - 8 - w : x + 8;
        const double base = c.below ? y + 17 : y - 8;
        const Box box{x0, base - h + 1, x0 + w, base + 3};
        if (box.x0 < f.left || box.x1 > f.right + kRight - 2 || box.y0 < f.top || box.y1 > f.bottom)
            continue;
        if (!fallback)
            fallback = box;
        if (std::none_of(taken.begin(), taken.end(),
                         [&](const auto& t) { return t.first.overlaps(box); })) {
            fallback = box;
            break;
        }
    }
    if (!fallback) // a plot too small for any corner: right-above, as close as it can be
        fallback = Box{x + 8, y - 18, x + 8 + w, y - 5};
    taken.emplace_back(*fallback, label);
    return SvgChart::text(fallback->x0, fallback->y1 - 3, label, "start",
                          (" class=\"label\" font-size=\"11\" fill=\"" +
                           SvgChart::escape(look.text) + "\" fill-opacity=\"0.85\"")
                              .c_str());
}

} // namespace

CapacityChart::CapacityChart(int width, int height, std::string title, SvgStyle style)
    : m_width(std::max(width, 320)), m_height(std::max(height, 240)), m_title(std::move(title)),
      m_style(std::move(style)) {
    m_style.fontPx = 12; // its margins are laid out for 12 px text: the colours only
}

CapacityChart::Axes CapacityChart::axesOf(const std::vector<const SweepCurve*>& curves,
                                          Axes wanted) {
    if (wanted.x.empty()) {
        wanted.x = "request_throughput";
        for (const auto* c : curves)
            for (const auto& p : c->points)
                if (p.kpis.count("output_throughput"))
                    wanted.x = "output_throughput";
    }
    for (const auto* c : curves)
        for (const auto& slo : c->slos)
            if (wanted.y.empty() && slo.unit == "s")
                wanted.y = slo.kpi;
    if (wanted.y.empty())
        wanted.y = "ttft_p99";
    return wanted;
}

std::string CapacityChart::sloText(const SloBound& slo) {
    return slo.kpi + (slo.atMost ? " <= " : " >= ") + boundFigure(slo.threshold, slo.unit);
}

std::string CapacityChart::render(const std::vector<Series>& series, const Axes& axes) const {
    SvgChart frame(m_width, m_height, m_title, m_style);
    std::string out = frame.open();
    std::vector<std::vector<Placed>> points;
    std::vector<std::string> missing;
    for (const auto& s : series)
        points.push_back(placed(*s.curve, s.name, axes, missing));
    const auto slos = slosOf(series);
    const Legend key = legend(series, points, !slos.empty(), m_width, m_style);
    out += key.svg;
    // The domain: from zero (a throughput and a latency both are), to the highest interval
    // end or SLO bound on the axis, with room above it.
    Frame f;
    double xHi = 0, yHi = 0, yLo = std::numeric_limits<double>::infinity();
    auto low = [&](double v) {
        if (v > 0)
            yLo = std::min(yLo, v);
    };
    for (const auto& list : points)
        for (const auto& p : list) {
            xHi = std::max({xHi, p.x, p.xi ? p.xi->hi : 0.0});
            yHi = std::max({yHi, p.y, p.yi ? p.yi->hi : 0.0});
            low(p.y);
            low(p.yi ? p.yi->lo : p.y);
        }
    std::vector<std::string> notes;
    std::vector<const SloBound*> drawn;
    for (const auto& slo : slos) {
        if (slo.kpi == axes.y) {
            yHi = std::max(yHi, slo.threshold);
            low(slo.threshold);
            drawn.push_back(&slo);
        } else {
            notes.push_back(sloText(slo));
        }
    }
    f.x1 = xHi > 0 && std::isfinite(xHi) ? xHi * 1.06 : 1;
    f.y1 = yHi > 0 && std::isfinite(yHi) ? yHi * 1.1 : 1;
    f.logY = std::isfinite(yLo) && std::isfinite(yHi) && yHi / yLo > kLogSpan;
    if (f.logY) // as much room below the lowest point as above the highest, on the log scale
        f.y0 = yLo / 1.25, f.y1 = yHi * 1.25;
    std::string xUnit, yUnit;
    const double xs = scaleOf(unitOf(axes.x), f, false, xUnit);
    const double ys = scaleOf(unitOf(axes.y), f, true, yUnit);
    const auto footer = footnotes(notes, missing, axes, m_width);
    f.left = kLeft;
    f.right = m_width - kRight;
    f.top = kLegendTop + key.height + 10;
    f.bottom = m_height - 46 - 16.0 * static_cast<double>(footer.size());
    out += "<g class=\"plot\" data-x0=\"" + SvgChart::exact(f.x0) + "\" data-x1=\"" +
           SvgChart::exact(f.x1) + "\" data-y0=\"" + SvgChart::exact(f.y0) + "\" data-y1=\"" +
           SvgChart::exact(f.y1) + "\" data-y-scale=\"" + (f.logY ? "log" : "linear") +
           "\" data-left=\"" + SvgChart::exact(f.left) + "\" data-right=\"" +
           SvgChart::exact(f.right) + "\" data-top=\"" + SvgChart::exact(f.top) +
           "\" data-bottom=\"" + SvgChart::exact(f.bottom) + "\">\n";
    out += grid(f, xs, ys, axisLabel(axes.x, xUnit), axisLabel(axes.y, yUnit, f.logY), m_width,
                m_style);
    for (const auto* slo : drawn)
        out += sloLine(f, *slo);
    std::string labels; // drawn last, over every line
    std::vector<std::pair<Box, std::string>> taken;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        std::string d;
        for (const auto& p : points[i])
            d += (d.empty() ? "M" : " L") + SvgChart::num(f.px(p.x)) + " " +
                 SvgChart::num(f.py(p.y));
        out += "<g class=\"series\" data-name=\"" + SvgChart::escape(s.name) + "\">\n";
        if (points[i].size() > 1)
            out += "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + SvgChart::escape(s.color) +
                   "\" stroke-width=\"1.6\" stroke-opacity=\"0.8\"/>\n";
        for (const auto& p : points[i]) {
            const double x = f.px(p.x), y = f.py(p.y);
            const bool hollow = p.point->holds.has_value() && !*p.point->holds;
            out += "<g class=\"point\" data-label=\"" + SvgChart::escape(p.point->label) +
                   "\" data-x=\"" + SvgChart::exact(p.x) + "\" data-y=\"" + SvgChart::exact(p.y) +
                   "\" data-holds=\"" +
                   (p.point->holds ? (*p.point->holds ? "true" : "false") : "") + "\">\n";
            if (p.xi)
                out += whisker("xbar", true, y, f.px(p.xi->lo), f.px(p.xi->hi), s.color);
            if (p.yi)
                out += whisker("ybar", false, x, f.py(p.yi->lo), f.py(p.yi->hi), s.color);
            out +=
                marker(i, x, y, s.color, hollow, m_style, tooltip(s.name, p, axes, !slos.empty()));
            out += "</g>\n";
            labels += pointLabel(f, i, x, y, p.point->label, taken, m_style);
        }
        out += "</g>\n";
    }
    out += labels + "</g>\n";
    for (std::size_t i = 0; i < footer.size(); ++i)
        out +=
            SvgChart::text(kLeft, m_height - 8 - 16.0 * static_cast<double>(footer.size() - 1 - i),
                           footer[i], "start",
                           (" font-size=\"11\" fill=\"" + SvgChart::escape(m_style.text) +
                            "\" fill-opacity=\"0.8\"")
                               .c_str());
    if (std::all_of(points.begin(), points.end(), [](const auto& l) { return l.empty(); }))
        out += SvgChart::text(m_width / 2.0, (f.top + f.bottom) / 2, "no data", "middle");
    return out + "</svg>\n";
}

} // namespace tierscope
