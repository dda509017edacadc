#pragma once

#include "core/model/MetricInfo.h"
#include "core/view/ChartCatalog.h"
#include "core/view/ChartLayout.h"

#include <QDialog>
#include <vector>

class QLineEdit;
class QListWidget;
class QTreeWidget;

namespace tierscope {

// Chooses what the timeline shows: the view's charts on or off, and new charts of any recorded
// metric (IOPS, await, queue depth, network, RDMA, ITL, p90: recorded, in no chart by default).
// Edits a copy of the layout; layout() is the result when accepted.
class ChartPickerDialog : public QDialog {
    Q_OBJECT
  public:
    // `charts`: the view's charts as drawn now (the layout already applied); `metrics`: every
    // metric the view has.
    ChartPickerDialog(const std::vector<ChartCatalog::Chart>& charts,
                      const std::vector<MetricInfo>& metrics, ChartLayout layout,
                      QWidget* parent = nullptr);

    ChartLayout layout() const;
    QListWidget* chartList() const { return m_charts; }
    QTreeWidget* metricTree() const { return m_metrics; }
    QLineEdit* titleEdit() const { return m_title; }
    QLineEdit* filterEdit() const { return m_filter; }
    // Charts of the metrics ticked in the tree, under the title typed, added to the list.
    void addPicked();

  private:
    void addChartItem(const QString& id, const QString& title, bool shown, int custom);
    void filter(const QString& text);

    ChartLayout m_layout;
    std::vector<MetricInfo> m_all;
    QListWidget* m_charts = nullptr;
    QTreeWidget* m_metrics = nullptr;
    QLineEdit* m_title = nullptr;
    QLineEdit* m_filter = nullptr;
};

} // namespace tierscope
