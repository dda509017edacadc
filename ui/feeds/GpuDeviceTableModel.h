#pragma once

#include "ui/feeds/GpuFigures.h"
#include "ui/feeds/GpuProcessMetaType.h"

#include <QAbstractTableModel>
#include <vector>

namespace tierscope {

// One row per GPU, nvtop's header line: utilisation, VRAM used of total, power, temperature
// and PCIe throughput, from the live recording's latest samples (GpuFigures), with the model
// and bus the process sampler found. Qt::UserRole holds the raw number; absent is an empty
// cell, never 0.
class GpuDeviceTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Gpu, Model, Busy, Vram, Power, Temperature, PcieRx, PcieTx, ColumnCount };

    explicit GpuDeviceTableModel(QObject* parent = nullptr);

    // Which GPUs there are and what they are called.
    void setGpus(const std::vector<GpuProcessSnapshot::Gpu>& gpus);
    // Their figures; a GPU the recording knows but the sampler does not still gets a row.
    void setFigures(const std::vector<GpuFigures>& figures);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    struct Row {
        int index = 0;
        QString model;
        QString busId;
        GpuFigures figures;
    };
    void rebuild();
    QVariant value(const Row& row, int column) const;
    QString text(const Row& row, int column) const;

    std::vector<GpuProcessSnapshot::Gpu> m_gpus;
    std::vector<GpuFigures> m_figures;
    std::vector<Row> m_rows;
};

} // namespace tierscope
