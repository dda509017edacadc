#pragma once

#include "ui/feeds/GpuFigures.h"
#include "ui/feeds/GpuProcessMetaType.h"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;

namespace tierscope {

class GpuDeviceTableModel;
class GpuProcessTableModel;

// The GPUs at nvtop's level: one row per GPU (utilisation, VRAM, power, temperature, PCIe),
// and under it the processes using them. With no GPU, in place of both tables, which backends
// were tried and why none answered.
class GpuPanel : public QWidget {
    Q_OBJECT
  public:
    explicit GpuPanel(QWidget* parent = nullptr);

    void setSnapshot(const GpuProcessSnapshot& snapshot);
    void setFigures(const std::vector<GpuFigures>& figures);
    // Not this machine's live view: the tables empty, and the message says where to look.
    void setInactive();

    GpuDeviceTableModel* deviceModel() const { return m_devices; }
    GpuProcessTableModel* processModel() const { return m_processes; }
    QTableView* deviceTable() const { return m_deviceTable; }
    QTableView* processTable() const { return m_processTable; }
    QLabel* messageLabel() const { return m_message; }
    QLabel* footnoteLabel() const { return m_footnote; }
    // The tables, or the message in their place.
    bool showsTables() const;
    QSize sizeHint() const override;

  private:
    void refresh();
    QTableView* makeTable(QAbstractItemModel* model, const char* name, int stretchColumn);

    GpuDeviceTableModel* m_devices = nullptr;
    GpuProcessTableModel* m_processes = nullptr;
    QStackedWidget* m_stack = nullptr;
    QWidget* m_tables = nullptr;
    QTableView* m_deviceTable = nullptr;
    QTableView* m_processTable = nullptr;
    QLabel* m_processMessage = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_footnote = nullptr;
};

} // namespace tierscope
