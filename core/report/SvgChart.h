#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// The colours and the text size a view draws with: the defaults are the light report's;
// a dark view passes its palette's, and a view at scale factor 2 its font's pixel size, so
// the chart's text is as large as the interface's. Plain values: no Qt here.
struct SvgStyle {
    std::string background = "#ffffff";
    std::string text = "#222222";
    std::string grid = "#e4e4e4";
    std::string axis = "#888888";
    std::string whisker = "#222222";
    double fontPx = 12; // tick and label text; titles and margins scale with it
    static SvgStyle light() { return {}; }
    static SvgStyle dark() { return {"#1e1f22", "#e6e6e6", "#3a3c40", "#8a8d93", "#e6e6e6", 12}; }
};

// Draws the comparison charts as standalone SVG text: no Qt, so the same chart goes into the
// HTML report, the GUI (QSvgWidget) and the PNG/PDF exports. Every label is XML-escaped.
class SvgChart {
  public:
    struct Series {
        std::string name;
        std::string color; // CSS colour
        std::vector<std::pair<double, double>> points;
        bool dashed = false;
    };
    // One plot of a stack of plots that share the x axis.
    struct Panel {
        std::string yLabel;
        std::vector<Series> series;
    };
    struct Bar {
        std::string label;
        double value = 0.0;
        std::optional<std::pair<double, double>> error; // low, high
        std::string color;
        int runs = 0; // the fewest runs on a side behind the interval; 0: not said
    };
    using Style = SvgStyle;
    struct Stack {
        std::string label;                                 // e.g. "A"
        std::vector<std::pair<std::string, double>> parts; // name, share 0..1
    };

    SvgChart(int width, int height, std::string title, Style style = {});
    const Style& style() const { return m_style; }
    // A whisker end further from zero than this many times the largest bar is clipped to the
    // axis and marked: a 2-run interval of +3,700 % would flatten every bar beside it.
    static constexpr double kClipFactor = 3.0;
    static constexpr const char* kTooWide = "2 runs: interval too wide to draw";

    std::string lines(const std::string& xLabel, const std::vector<Panel>& panels) const;
    std::string bars(const std::string& yLabel, const std::vector<Bar>& bars) const;
    std::string stacks(const std::vector<Stack>& stacks,
                       const std::vector<std::pair<std::string, std::string>>& colors) const;

    static std::string escape(const std::string& text);
    // 1-2-5 steps that put about `count` ticks across [lo, hi].
    static std::vector<double> ticks(double lo, double hi, int count);

    // The pieces every chart is drawn from, for the charts drawn in their own class
    // (CapacityChart): coordinates to 0.1 px, a tick's figure, exact figures for data-*
    // attributes, and elements whose text is escaped here.
    static std::string num(double v);
    static std::string tickText(double v);
    static std::string exact(double v);
    static std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                            const char* extra = "");
    static std::string line(double x1, double y1, double x2, double y2, const char* style);
    static std::string rect(double x, double y, double w, double h, const std::string& fill,
                            const std::string& title = {});
    // The <svg> element, its ground and the title in the style's colours; the caller closes
    // it.
    std::string open() const;
    int width() const { return m_width; }
    int height() const { return m_height; }

  private:
    std::string panel(const Panel& p, double lo, double hi, int top, int height, bool xTicks) const;
    std::string whisker(const Bar& b, double cx, double w, double clip,
                        const std::function<double(double)>& py) const;
    double px(double v) const { return v * m_style.fontPx / 12.0; } // a size at 12 px text
    std::string stroke(const std::string& color) const;

    int m_width;
    int m_height;
    std::string m_title;
    Style m_style;
};

} // namespace tierscope
