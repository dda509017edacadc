#pragma once

#include "core/view/RunRequestSummary.h"

#include <QList>
#include <QWidget>
#include <vector>

class QChart;
class QChartView;
class QTableView;
class QTabWidget;

namespace tierscope {

class RunTableModel;

// The load and run views of a session with requests: the per-run summary table beside the
// TTFT CDF of each run and each run's TTFTs aligned at its start, one colour per arm (or
// workload) in both charts; a warm-up or cancelled run is dashed and hollow there, as compare
// leaves it out. Selecting rows (Ctrl+click for several) thickens those runs' lines and asks
// the timeline to mark them.
class RunsPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunsPanel(QWidget* parent = nullptr);

    void setRows(std::vector<RunRequestSummary::Row> rows);
    void setDark(bool dark);

    RunTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QChart* cdfChart() const { return m_cdf; }
    QChart* overlayChart() const { return m_overlay; }
    QTabWidget* tabs() const { return m_tabs; }
    // The runs whose lines are drawn thick, and whose rows are selected.
    const QList<qint64>& highlightedRuns() const { return m_highlighted; }
    void highlightRuns(const QList<qint64>& runIds);
    // One run, or none for 0.
    void highlightRun(qint64 runId);

    // The colour of the n-th arm or workload of the session, readable on either background.
    static QColor groupColor(int index, bool dark);

  signals:
    // The runs of the rows selected in the table, by id.
    void runsSelected(const QList<qint64>& runIds);

  private:
    void rebuild();
    void selectRows();
    void buildCdf(const std::vector<std::string>& groups);
    void buildOverlay(const std::vector<std::string>& groups);

    RunTableModel* m_model = nullptr;
    QTableView* m_table = nullptr;
    QTabWidget* m_tabs = nullptr;
    QChartView* m_cdfView = nullptr;
    QChartView* m_overlayView = nullptr;
    QChart* m_cdf = nullptr;
    QChart* m_overlay = nullptr;
    bool m_dark = false;
    QList<qint64> m_highlighted;
    bool m_selectingRows = false; // the table follows highlightRuns: not a user's selection
};

} // namespace tierscope
