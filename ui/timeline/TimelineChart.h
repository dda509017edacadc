#pragma once

#include "core/model/Bucket.h"
#include "core/view/ChartCatalog.h"
#include "ui/timeline/ChartAnnotations.h"
#include "ui/timeline/UnitScale.h"

#include <QLineF>
#include <QWidget>
#include <memory>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QLineSeries;
class QValueAxis;
class QGraphicsLineItem;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QComboBox;
class QMenu;
class QStackedWidget;

namespace tierscope {

class LinePlotItem;
class RangeBand;

// One chart of the timeline: its series, a time axis in seconds from an origin, a crosshair
// the timeline moves, and in place of an empty chart the reason its source is absent.
class TimelineChart : public QWidget {
    Q_OBJECT
  public:
    // Painter: lines drawn directly (LinePlotItem), the default. Series: QtCharts' own line
    // items, several times slower per point. OpenGl: QtCharts' OpenGL series, for a real GPU.
    enum class Renderer { Painter, Series, OpenGl };

    TimelineChart(const ChartCatalog::Chart& spec, Renderer renderer, bool dark,
                  QWidget* parent = nullptr);

    const ChartCatalog::Chart& spec() const { return m_spec; }
    // One bucket list per series of the spec, in its order.
    void setData(const std::vector<std::vector<Bucket>>& data, std::int64_t originNs);
    void setTimeRange(double x0, double x1, const QString& axisTitle);
    void setCrosshair(double x); // NaN hides it
    // The selected time range, a translucent band over the plot; NaN hides it.
    void setSelection(double x0, double x1);
    QRectF selectionRect() const; // chart coordinates; empty when hidden
    int plotWidth() const;
    // The axes' tick steps (1, 2 or 5 times a power of ten, from zero), the time labels'
    // printf format and the value axis' top.
    double timeTickStep() const;
    QString timeLabelFormat() const;
    double valueTickStep() const;
    double valueTop() const;
    // Extra room left of the plot, so that charts whose y labels are narrower line up with
    // the widest; naturalPlotLeft() is where the plot would start without it.
    void setLeftInset(int px);
    // The height of a chart with data (the node picker comes on top); an absent chart keeps
    // its one-line height.
    void setChartHeight(int px);
    double naturalPlotLeft() const;
    // The plot area in `ancestor`'s coordinates.
    QRect plotRectIn(const QWidget* ancestor) const;
    bool isAbsent() const { return m_spec.series.empty(); }
    bool zeroNoted() const; // "0 throughout the view" is shown
    QStringList legendNames() const;
    int pointCount() const; // points now plotted, over all series
    QString absentText() const;
    QString crosshairText() const; // what the crosshair shows now; empty when hidden
    // Runs shaded behind the data and events drawn over it (ChartAnnotations).
    using Span = ChartAnnotations::Span;
    using Marker = ChartAnnotations::Marker;
    void setSpans(const std::vector<Span>& spans);
    // The spans drawn now: their rectangles (chart coordinates) and the labels that fit.
    std::vector<QRectF> spanRects() const;
    QStringList spanLabels() const;
    void setMarkers(const std::vector<Marker>& markers);
    // The markers drawn now (inside the time range): their lines (a tick's is short) and the
    // notes printed.
    std::vector<QLineF> markerLines() const;
    QStringList markerLabels() const;
    std::vector<QRectF> markerLabelRects() const;
    bool seriesVisible(int index) const;
    // Switches a series (by its legend name) on or off as a click on its legend entry does,
    // without seriesToggled: for a layout that remembers it off.
    void setSeriesShown(const QString& name, bool shown);
    QChart* chart() const { return m_chart; }
    LinePlotItem* plotItem() const { return m_plot; } // null unless Renderer::Painter
    // Zoom (wheel) and pan (drag) for a recorded session; off in the live view, where the
    // wheel scrolls the timeline.
    void setInteractive(bool on) { m_interactive = on; }
    // The machines its series come from (read through Prometheus); empty for one machine.
    QStringList nodes() const;
    // Shows only that node's series; empty: all nodes.
    void selectNode(const QString& node);
    // The menu a right-click on the plot opens (owned by the caller).
    QMenu* contextMenu();

  signals:
    void hovered(double x); // NaN when the pointer leaves
    void zoomed(double factor, double anchorX);
    void panned(double dx);
    void resetRequested();                // a double-click on an interactive chart, off the runs
    void spanDoubleClicked(int index);    // a double-click on a run's span
    void selecting(double x0, double x1); // a Shift+drag across the plot, as it moves
    void selected(double x0, double x1);  // ... and where it ended
    void spanClicked(int index);          // a click (not a drag) inside a span
    void exportRequested();               // "Export this chart…" in its context menu
    void seriesToggled(const QString& name, bool shown); // by a click on its legend entry

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void toggle(QLineSeries* series);
    void showSeries(QLineSeries* series, bool shown);
    void layoutAnnotations();
    void layoutZeroNote();
    void plotAreaChanged();
    void applyTimeTicks();
    void applyValueTicks();
    void layoutSelection();

    ChartCatalog::Chart m_spec;
    QStackedWidget* m_stack = nullptr;
    QComboBox* m_node = nullptr;
    QLabel* m_absent = nullptr;
    QChartView* m_view = nullptr;
    QChart* m_chart = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    std::vector<QLineSeries*> m_series;
    LinePlotItem* m_plot = nullptr;
    std::vector<std::vector<Bucket>> m_data;
    std::int64_t m_origin = 0;
    UnitScale m_scale;
    double m_valuePeak = 0;    // in m_scale's unit
    bool m_percentTop = false; // a percent chart whose values fit under 100 %
    bool m_valueTicksQueued = false;
    QGraphicsLineItem* m_crossLine = nullptr;
    QGraphicsSimpleTextItem* m_crossText = nullptr;
    QGraphicsSimpleTextItem* m_zeroNote = nullptr;   // shown when every value in view is 0
    std::unique_ptr<ChartAnnotations> m_annotations; // none on an absent chart
    QPointF m_pressAt;
    int m_leftInset = 0;
    int m_extraHeight = 0;  // the node picker's row
    int m_laidOutInset = 0; // the inset the current plot area was laid out with
    double m_dragX = 0;
    bool m_dragging = false;
    RangeBand* m_selection = nullptr; // the selected range
    double m_selectFrom = 0;          // where a Shift+drag started
    bool m_selecting = false;
    int m_clickedSpan = -1;          // the span the latest click hit, for a double-click
    bool m_afterDoubleClick = false; // the release that ends a double-click is no click
    bool m_interactive = false;
};

} // namespace tierscope
