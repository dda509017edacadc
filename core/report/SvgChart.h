#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

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
    };
    struct Stack {
        std::string label;                                 // e.g. "A"
        std::vector<std::pair<std::string, double>> parts; // name, share 0..1
    };

    SvgChart(int width, int height, std::string title);

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
    // The <svg> element, its white ground and the title; the caller closes it.
    std::string open() const;
    int width() const { return m_width; }
    int height() const { return m_height; }

  private:
    std::string panel(const Panel& p, double lo, double hi, int top, int height, bool xTicks) const;

    int m_width;
    int m_height;
    std::string m_title;
};

} // namespace tierscope
