#include "core/report/SvgChart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tierscope {

namespace {

// Margins at 12 px text (SvgChart::px scales them with the text): the y labels' column, the
// right edge, the title's row and a row of legend above each panel.
constexpr int kPlotLeft = 72;
constexpr int kPlotRight = 24;
constexpr int kTop = 40;
constexpr int kLegend = 22;

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    void add(double v) {
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    bool empty() const { return lo > hi; }
    // Values start at zero when all are positive, and a flat line still gets a span.
    Range padded(bool fromZero) const {
        Range r = empty() ? Range{0, 1} : *this;
        if (fromZero)
            r.lo = std::min(r.lo, 0.0), r.hi = std::max(r.hi, 0.0);
        if (r.hi - r.lo < 1e-12)
            r.hi = r.lo + (r.lo == 0 ? 1 : std::abs(r.lo) * 0.1);
        r.hi += (r.hi - r.lo) * 0.05;
        return r;
    }
};

} // namespace

std::string SvgChart::num(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
    return buffer;
}

std::string SvgChart::tickText(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", std::abs(v) < 1e-12 ? 0.0 : v);
    return buffer;
}

std::string SvgChart::text(double x, double y, const std::string& s, const char* anchor,
                           const char* extra) {
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
           extra + ">" + SvgChart::escape(s) + "</text>\n";
}

std::string SvgChart::line(double x1, double y1, double x2, double y2, const char* style) {
    return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
           num(y2) + "\" " + style + "/>\n";
}

std::string SvgChart::exact(double v) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", v);
    return text;
}

std::string SvgChart::rect(double x, double y, double w, double h, const std::string& fill,
                           const std::string& title) {
    std::string r = "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" +
                    num(std::max(0.0, w)) + "\" height=\"" + num(std::max(0.0, h)) + "\" fill=\"" +
                    SvgChart::escape(fill) + "\"";
    if (title.empty())
        return r + "/>\n";
    return r + "><title>" + SvgChart::escape(title) + "</title></rect>\n";
}

SvgChart::SvgChart(int width, int height, std::string title, Style style)
    : m_width(std::max(width, 200)), m_height(std::max(height, 150)), m_title(std::move(title)),
      m_style(std::move(style)) {
    if (!(m_style.fontPx > 4 && m_style.fontPx < 200))
        m_style.fontPx = 12;
}

std::string SvgChart::stroke(const std::string& color) const {
    return "stroke=\"" + escape(color) + "\"";
}

std::string SvgChart::escape(const std::string& s) {
    std::string out;
    for (const char c : s) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            // Control characters are not allowed in XML 1.0.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n')
                out += c;
        }
    }
    return out;
}

std::vector<double> SvgChart::ticks(double lo, double hi, int count) {
    std::vector<double> out;
    if (!(hi > lo) || count < 1)
        return out;
    const double raw = (hi - lo) / count;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude; // the 1-2-5 step nearest to the raw one, on a log scale
    for (const double m : {2.0, 5.0, 10.0})
        if (std::abs(std::log(m * magnitude / raw)) < std::abs(std::log(step / raw)))
            step = m * magnitude;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        out.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return out;
}

std::string SvgChart::open() const {
    const std::string w = std::to_string(m_width), h = std::to_string(m_height);
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
           "\" viewBox=\"0 0 " + w + " " + h +
           "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"" + num(px(12)) +
           "\" fill=\"" + escape(m_style.text) + "\">\n" +
           rect(0, 0, m_width, m_height, m_style.background) +
           text(m_width / 2.0, px(22), m_title, "middle",
                (" font-size=\"" + num(px(15)) + "\" font-weight=\"bold\"").c_str());
}

std::string SvgChart::panel(const Panel& p, double xlo, double xhi, int top, int height,
                            bool xTicks) const {
    const double plotTop = top + px(kLegend), plotBottom = top + height;
    const double left = px(kPlotLeft), right = m_width - px(kPlotRight);
    Range y;
    for (const auto& s : p.series)
        for (const auto& pt : s.points)
            y.add(pt.second);
    y = y.padded(y.empty() || y.lo >= 0);
    auto xAt = [&](double x) { return left + (x - xlo) / (xhi - xlo) * (right - left); };
    auto yAt = [&](double v) {
        return plotBottom - (v - y.lo) / (y.hi - y.lo) * (plotBottom - plotTop);
    };
    const std::string grid = stroke(m_style.grid), axis = stroke(m_style.axis);
    std::string out = "<g class=\"panel\">\n";
    for (const double t : ticks(y.lo, y.hi, std::max(2, static_cast<int>(height / px(45))))) {
        out += line(left, yAt(t), right, yAt(t), grid.c_str());
        out += text(left - px(6), yAt(t) + px(4), tickText(t), "end");
    }
    if (xTicks)
        for (const double t :
             ticks(xlo, xhi, std::max(2, static_cast<int>((right - left) / px(90))))) {
            out += line(xAt(t), plotTop, xAt(t), plotBottom,
                        (grid + " stroke-opacity=\"0.6\"").c_str());
            out += text(xAt(t), plotBottom + px(16), tickText(t), "middle");
        }
    out += line(left, plotBottom, right, plotBottom, axis.c_str());
    out += line(left, plotTop, left, plotBottom, axis.c_str());
    const double mid = (plotTop + plotBottom) / 2;
    out += text(px(14), mid, p.yLabel, "middle",
                (" transform=\"rotate(-90 " + num(px(14)) + " " + num(mid) + ")\"").c_str());
    double legendX = left;
    for (const auto& s : p.series) {
        out += rect(legendX, top + px(6), px(14), px(4), s.color);
        out += text(legendX + px(18), top + px(12), s.name);
        legendX += px(30 + 7.0 * static_cast<double>(s.name.size()));
        if (s.points.empty())
            continue;
        if (s.points.size() == 1) { // a run shorter than one sample interval: a dot, not nothing
            out += "<circle class=\"series\" data-name=\"" + escape(s.name) + "\" cx=\"" +
                   num(xAt(s.points[0].first)) + "\" cy=\"" + num(yAt(s.points[0].second)) +
                   "\" r=\"3.5\" fill=\"" + escape(s.color) + "\"/>\n";
            continue;
        }
        std::string d;
        for (const auto& pt : s.points)
            d += (d.empty() ? "M" : " L") + num(xAt(pt.first)) + " " + num(yAt(pt.second));
        out += "<path class=\"series\" data-name=\"" + escape(s.name) + "\" d=\"" + d +
               "\" fill=\"none\" stroke=\"" + escape(s.color) + "\" stroke-width=\"1.6\"" +
               (s.dashed ? " stroke-dasharray=\"6 3\"" : "") + "/>\n";
    }
    return out + "</g>\n";
}

std::string SvgChart::lines(const std::string& xLabel, const std::vector<Panel>& panels) const {
    Range x;
    for (const auto& p : panels)
        for (const auto& s : p.series)
            for (const auto& pt : s.points)
                x.add(pt.first);
    if (x.empty())
        x = {0, 1};
    x.lo = std::min(x.lo, 0.0); // time from run start and latency both begin at zero
    if (x.hi - x.lo < 1e-12)
        x.hi = x.lo + 1;
    std::string out = open();
    const int count = std::max<int>(1, static_cast<int>(panels.size()));
    const int top = static_cast<int>(px(kTop)), bottom = static_cast<int>(px(44)), gap = 12;
    const int each = (m_height - top - bottom - gap * (count - 1)) / count;
    for (int i = 0; i < static_cast<int>(panels.size()); ++i)
        out += panel(panels[static_cast<std::size_t>(i)], x.lo, x.hi, top + i * (each + gap), each,
                     i == count - 1);
    if (panels.empty())
        out += text(m_width / 2.0, m_height / 2.0, "no data", "middle");
    out +=
        text((px(kPlotLeft) + m_width - px(kPlotRight)) / 2.0, m_height - px(8), xLabel, "middle");
    return out + "</svg>\n";
}

// The interval as a whisker, each end clipped at `clip` from zero and marked with an arrow
// where it was; with two runs a side and an end past the clip, words instead of a whisker.
std::string SvgChart::whisker(const Bar& b, double cx, double w, double clip,
                              const std::function<double(double)>& py) const {
    const double lo = b.error->first, hi = b.error->second;
    const bool clipLo = lo<-clip, clipHi = hi> clip;
    if ((clipLo || clipHi) && b.runs == 2) {
        // Two short lines across the bar's end, above a rise and below a fall: the axis runs
        // to 3x the largest change, so there is room there. Not turned on its side (it ran out
        // of the plot), and no <title> inside the text: Qt's renderer draws a title's words.
        const std::string words = kTooWide;
        const std::size_t cut = words.find(' ', words.find("interval"));
        const double size = px(10), lead = size * 1.2;
        const double first = b.value >= 0 ? py(b.value) - px(6) - lead : py(b.value) + px(6) + size;
        std::string out;
        for (int i = 0; i < 2; ++i)
            out += "<text class=\"too-wide\" x=\"" + num(cx) + "\" y=\"" + num(first + i * lead) +
                   "\" text-anchor=\"middle\" font-size=\"" + num(size) +
                   "\" font-style=\"italic\">" +
                   escape(i == 0 ? words.substr(0, cut) : words.substr(cut + 1)) + "</text>\n";
        return out;
    }
    const double yLo = py(std::max(lo, -clip)), yHi = py(std::min(hi, clip));
    const std::string style = stroke(m_style.whisker) + " stroke-width=\"1.4\"";
    std::string out = line(cx, yLo, cx, yHi, style.c_str());
    const double cap = w / 5, head = px(5);
    auto arrow = [&](double y, double dir, double end) { // dir: -1 up, +1 down
        return "<path class=\"clipped\" d=\"M" + num(cx - head) + " " + num(y - dir * head) + " L" +
               num(cx) + " " + num(y + dir * head * 0.6) + " L" + num(cx + head) + " " +
               num(y - dir * head) + " Z\" fill=\"" + escape(m_style.whisker) + "\"><title>" +
               escape(b.label + ": the interval reaches " + tickText(end) + ", past the axis") +
               "</title></path>\n";
    };
    out += clipLo ? arrow(yLo, 1, lo) : line(cx - cap, yLo, cx + cap, yLo, style.c_str());
    out += clipHi ? arrow(yHi, -1, hi) : line(cx - cap, yHi, cx + cap, yHi, style.c_str());
    return out;
}

std::string SvgChart::bars(const std::string& yLabel, const std::vector<Bar>& bars) const {
    // The axis holds the bars and what of the whiskers can be read beside them.
    double largest = 0;
    for (const auto& b : bars)
        if (std::isfinite(b.value))
            largest = std::max(largest, std::abs(b.value));
    const double clip = largest > 0 ? largest * kClipFactor : std::numeric_limits<double>::max();
    Range y;
    bool clipped = false;
    for (const auto& b : bars) {
        y.add(b.value);
        if (!b.error)
            continue;
        clipped = clipped || b.error->first < -clip || b.error->second > clip;
        y.add(std::clamp(b.error->first, -clip, clip));
        y.add(std::clamp(b.error->second, -clip, clip));
    }
    y = y.padded(true);
    y.lo -= (y.hi - y.lo) * 0.05 * (y.lo < 0);
    const double bottom = px(120) + (clipped ? px(16) : 0);
    const double top = px(kTop + 8), plotBottom = m_height - bottom;
    const double left = px(kPlotLeft), right = m_width - px(kPlotRight);
    auto py = [&](double v) {
        return plotBottom - (v - y.lo) / (y.hi - y.lo) * (plotBottom - top);
    };
    std::string out = open();
    const std::string grid = stroke(m_style.grid);
    for (const double t : ticks(y.lo, y.hi, 6)) {
        out += line(left, py(t), right, py(t), grid.c_str());
        out += text(left - px(6), py(t) + px(4), tickText(t), "end");
    }
    const double mid = (top + plotBottom) / 2;
    out += text(px(14), mid, yLabel, "middle",
                (" transform=\"rotate(-90 " + num(px(14)) + " " + num(mid) + ")\"").c_str());
    const double slot = (right - left) / std::max<std::size_t>(1, bars.size());
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double cx = left + slot * (static_cast<double>(i) + 0.5);
        const double w = std::min(60.0, slot * 0.6);
        const double y0 = py(0), y1 = py(b.value);
        // The figures behind the bar, unrounded, for whoever reads the SVG as data.
        std::string data = " data-value=\"" + exact(b.value) + "\"";
        if (b.error)
            data += " data-lo=\"" + exact(b.error->first) + "\" data-hi=\"" +
                    exact(b.error->second) + "\"";
        out += "<g class=\"bar\" data-name=\"" + escape(b.label) + "\"" + data + ">\n";
        out += rect(cx - w / 2, std::min(y0, y1), w, std::abs(y1 - y0), b.color,
                    b.label + ": " + tickText(b.value));
        if (b.error)
            out += whisker(b, cx, w, clip, py);
        const std::string at = num(cx) + " " + num(plotBottom + px(14));
        out += text(cx, plotBottom + px(14), b.label, "end",
                    (" transform=\"rotate(-35 " + at + ")\"").c_str());
        out += "</g>\n";
    }
    out += line(left, py(0), right, py(0), stroke(m_style.axis).c_str());
    if (clipped)
        out += text(left, m_height - px(6),
                    "Axis clipped at " + tickText(kClipFactor) +
                        "x the largest change: an arrow marks an interval that goes on "
                        "(its ends in the tooltip)",
                    "start", (" class=\"clip-note\" font-size=\"" + num(px(11)) + "\"").c_str());
    if (bars.empty())
        out += text(m_width / 2.0, m_height / 2.0, "no data", "middle");
    return out + "</svg>\n";
}

std::string SvgChart::stacks(const std::vector<Stack>& stacks,
                             const std::vector<std::pair<std::string, std::string>>& colors) const {
    auto colorOf = [&](const std::string& name) {
        for (const auto& [n, c] : colors)
            if (n == name)
                return c;
        return std::string("#999999");
    };
    std::string out = open();
    const double left = px(kPlotLeft + 40), right = m_width - px(kPlotRight);
    const double top = px(kTop + 6), bottom = m_height - px(40);
    const double row = (bottom - top) / std::max<std::size_t>(1, stacks.size());
    const double barHeight = std::min(px(48), row * 0.6);
    for (std::size_t i = 0; i < stacks.size(); ++i) {
        const double y = top + row * static_cast<double>(i) + (row - barHeight) / 2;
        out += text(left - px(8), y + barHeight / 2 + px(4), stacks[i].label, "end",
                    " font-weight=\"bold\"");
        double x = left;
        for (const auto& [name, share] : stacks[i].parts) {
            const double w = std::clamp(share, 0.0, 1.0) * (right - left);
            char pct[32];
            std::snprintf(pct, sizeof pct, "%.0f %%", share * 100);
            out +=
                rect(x, y, w, barHeight, colorOf(name), stacks[i].label + ": " + pct + " " + name);
            if (w > px(44)) // white on the class colours, whatever the theme
                out += text(x + w / 2, y + barHeight / 2 + px(4), pct, "middle",
                            " fill=\"#fff\" font-weight=\"bold\"");
            x += w;
        }
    }
    double legendX = left;
    for (const auto& [name, color] : colors) {
        out += rect(legendX, m_height - px(24), px(12), px(12), color);
        out += text(legendX + px(16), m_height - px(14), name);
        legendX += px(34 + 7.0 * static_cast<double>(name.size()));
    }
    if (stacks.empty())
        out += text(m_width / 2.0, m_height / 2.0, "no data", "middle");
    return out + "</svg>\n";
}

} // namespace tierscope
