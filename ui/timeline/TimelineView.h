#pragma once

#include "core/model/Bucket.h"
#include "core/view/ChartCatalog.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineMarker.h"
#include "ui/timeline/TimelineSpan.h"

#include <QList>
#include <QWidget>
#include <map>
#include <set>
#include <utility>
#include <vector>

class QAction;
class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace tierscope {

class BottleneckBand;
class SectionTrack;
class StatTileRow;

// The stack of charts that share one time axis: they scroll together, show one crosshair,
// and zoom and pan together when a recorded session is open.
class TimelineView : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineView(QWidget* parent = nullptr);

    void setRenderer(TimelineChart::Renderer renderer) { m_renderer = renderer; }
    void setDark(bool dark);
    // Rebuilds the charts (only when the set of charts or series changed).
    void setCharts(const std::vector<ChartCatalog::Chart>& charts);
    // Data keyed by metric id, x measured in seconds from originNs.
    void setData(const std::map<std::int64_t, std::vector<Bucket>>& data, std::int64_t originNs);
    // The live view's frame for the charts in view only (visibleSpecs()): the series it carries
    // replace theirs, the others keep what they had until a frame reaches them.
    void setVisibleData(const std::map<std::int64_t, std::vector<Bucket>>& data,
                        std::int64_t originNs);
    // The charts the scroll area shows now (all of them before the first layout): reading and
    // drawing the others is work nobody sees.
    std::vector<ChartCatalog::Chart> visibleSpecs() const;
    void setTimeRange(double x0, double x1, const QString& axisTitle);
    void setInteractive(bool on);
    // The extent a recorded session's zoom and pan stay inside, and where a reset returns.
    void setBounds(double x0, double x1);
    // Back to the whole session (double-click on a chart, or Ctrl+0).
    void resetZoom();
    QAction* resetZoomAction() const { return m_reset; }
    // [x0, x1] moved inside [b0, b1] (a range wider than that becomes it) and no narrower
    // than minSpan.
    static std::pair<double, double> clampRange(double x0, double x1, double b0, double b1,
                                                double minSpan);
    // Drawn on every chart, placed by the origin of the latest data.
    void setMarkers(const std::vector<TimelineMarker>& markers);
    // Series switched off per chart id (by legend name), kept when the charts are rebuilt.
    void setHiddenSeries(const std::map<std::string, std::set<std::string>>& hidden);
    // As set, with what the legends switched since (no empty entries).
    const std::map<std::string, std::set<std::string>>& hiddenSeries() const {
        return m_hiddenSeries;
    }
    const std::vector<TimelineMarker>& markers() const { return m_markers; }
    // Runs shaded on every chart, coloured by arm; a click on one selects it (and zooms to it).
    void setSpans(const std::vector<TimelineSpan>& spans);
    const std::vector<TimelineSpan>& spans() const { return m_spans; }
    // The runs whose spans are drawn selected (a link's --runs 3,5, or rows of the Runs dock).
    void selectRuns(const QList<qint64>& runIds);
    const QList<qint64>& selectedRuns() const { return m_selectedRuns; }
    void selectRun(qint64 runId); // one, or none for 0
    qint64 selectedRun() const { return m_selectedRuns.isEmpty() ? 0 : m_selectedRuns.front(); }
    double rangeStart() const { return m_x0; }
    double rangeEnd() const { return m_x1; }
    // The time range selected for its figures (Shift+drag, or a double-click on a run): a
    // band on every chart, [selectionStart, selectionEnd] seconds from the origin.
    bool hasSelection() const { return m_selection1 > m_selection0; }
    double selectionStart() const { return m_selection0; }
    double selectionEnd() const { return m_selection1; }
    // The stored series the charts draw (not those made of requests), by metric id.
    std::set<std::int64_t> storedMetricIds() const;
    // Pixel width of the plots: decimation targets about one bucket per pixel.
    int plotWidth() const;
    const std::vector<TimelineChart*>& charts() const { return m_charts; }
    TimelineChart* chart(const std::string& id) const;
    QLabel* rangeLabel() const { return m_rangeLabel; }
    BottleneckBand* bottleneckBand() const { return m_band; }
    // The session's named phases and runs above the charts (setSections; hidden without any):
    // a click on one selects its span as a double-click on a run does.
    SectionTrack* sectionTrack() const { return m_sections; }
    QString axisTitle() const { return m_axisTitle; }
    StatTileRow* tiles() const { return m_tiles; } // the live view's stat tiles
    const std::vector<ChartCatalog::Chart>& specs() const { return m_specs; }
    // The order the charts tell the story in: TTFT, throughput, GPU, storage, host; a chart
    // with data before one that explains why it is empty.
    static int storyRank(const std::string& chartId);

  public slots:
    // Kept inside the bounds; what a Shift+drag ends in, and Escape's undoing of it.
    void selectRange(double x0, double x1);
    void clearSelection();

  signals:
    void rangeChanged(double x0, double x1);  // after a zoom or pan by the user
    void rangeSelected(double x0, double x1); // a range was selected for its figures
    void selectionCleared();
    void plotWidthChanged(int px);  // the charts were laid out anew
    void viewportMoved();           // scrolled or resized: other charts may have come into view
    void runSelected(qint64 runId); // by a click on its span
    void chartExportRequested(const QString& chartId); // from a chart's context menu
    void seriesToggled(const QString& chartId, const QString& name, bool shown);

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

  private:
    void applyData(TimelineChart* chart);
    void applyToVisible();
    bool inView(const TimelineChart* chart) const;
    void dataReplaced(std::int64_t originNs);
    void zoom(double factor, double anchor);
    void pan(double dx);
    void moveTo(double x0, double x1);
    void alignBand();
    void applyMarkers(TimelineChart* chart);
    void applySpans(TimelineChart* chart);
    void fitChartHeights();
    void showSelection(double x0, double x1);
    void connectSelection(TimelineChart* chart);
    // The run selected (0: none) and [t0Ns, t1Ns] as the range.
    void selectSpan(qint64 runId, std::int64_t t0Ns, std::int64_t t1Ns);

    QVBoxLayout* m_layout = nullptr;
    std::vector<TimelineChart*> m_charts;
    std::vector<ChartCatalog::Chart> m_specs;
    double m_x0 = 0;
    double m_x1 = 1;
    double m_bound0 = 0;
    double m_bound1 = 0; // equal to m_bound0: no bounds
    QAction* m_reset = nullptr;
    int m_plotWidth = 0; // as last laid out
    QString m_axisTitle;
    TimelineChart::Renderer m_renderer = TimelineChart::Renderer::Painter;
    bool m_dark = false;
    bool m_interactive = false;
    QScrollArea* m_scroll = nullptr;
    BottleneckBand* m_band = nullptr;
    SectionTrack* m_sections = nullptr;
    StatTileRow* m_tiles = nullptr;
    QLabel* m_axisLabel = nullptr; // the shared time axis' title
    QLabel* m_rangeLabel = nullptr;
    std::map<std::int64_t, std::vector<Bucket>> m_data; // the latest, for charts scrolled into view
    std::int64_t m_origin = 0;
    std::vector<TimelineMarker> m_markers;
    std::map<std::string, std::set<std::string>> m_hiddenSeries;
    std::vector<TimelineSpan> m_spans;
    QList<qint64> m_selectedRuns;
    double m_selection0 = 0;
    double m_selection1 = 0; // equal to m_selection0: none
    std::map<TimelineChart*, bool> m_stale;
};

} // namespace tierscope
