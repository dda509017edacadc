#pragma once

#include <QColor>
#include <QLineF>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

class QChart;
class QGraphicsLineItem;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QLineSeries;
class QValueAxis;

namespace tierscope {

// What a timeline chart draws over its data besides the lines: the runs as shaded spans
// behind it, and the session's events as marker lines with their notes. Its items belong to
// the chart's scene; positions follow the time axis, so the chart asks for a layout whenever
// its range or plot area changes.
class ChartAnnotations {
  public:
    // Stretches of time shaded behind the data (runs), x in seconds from the origin.
    struct Span {
        double x0 = 0;
        double x1 = 0;
        QString label;
        QString tooltip;
        QColor color;
        bool selected = false;
    };
    // At x (seconds from the origin, as the time range): a line and its note, or for a
    // routine one a tick at the top of the plot with the note as its tooltip.
    struct Marker {
        double x = 0;
        QString text;
        bool routine = false;
    };

    // `reference` is any series of the chart: it maps time to the scene.
    ChartAnnotations(QChart* chart, QValueAxis* x, QLineSeries* reference);

    void setSpans(const std::vector<Span>& spans);
    void setMarkers(const std::vector<Marker>& markers);
    void layout(); // both, for the axis range and plot area now
    // The span under x, if any.
    std::optional<int> spanAt(double x) const;

    // What is drawn now: the spans' rectangles (chart coordinates) and the labels that fit;
    // the markers inside the time range, their lines (a tick's is short) and the notes printed.
    std::vector<QRectF> spanRects() const;
    QStringList spanLabels() const;
    std::vector<QLineF> markerLines() const;
    QStringList markerLabels() const;
    std::vector<QRectF> markerLabelRects() const;

  private:
    void layoutSpans();
    void layoutMarkers();
    double sceneX(double x) const;

    QChart* m_chart;
    QValueAxis* m_x;
    QLineSeries* m_reference;
    std::vector<Span> m_spans;
    std::vector<QGraphicsRectItem*> m_spanRects;
    std::vector<QGraphicsSimpleTextItem*> m_spanTexts;
    std::vector<Marker> m_markers;
    std::vector<QGraphicsLineItem*> m_markerLines;
    std::vector<QGraphicsSimpleTextItem*> m_markerTexts;
};

} // namespace tierscope
