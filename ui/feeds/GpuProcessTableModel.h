#pragma once

#include "ui/feeds/GpuProcessMetaType.h"

#include <QAbstractTableModel>
#include <QString>
#include <optional>
#include <vector>

namespace tierscope {

// The processes using this machine's GPUs, one row per (GPU, process), each GPU's largest VRAM
// user first, as nvtop lists them. Qt::UserRole holds the raw value (GPU index, pid, VRAM
// bytes); an absent name or VRAM is an invalid QVariant and an empty cell, never "0 B".
class GpuProcessTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Gpu, Pid, Name, Vram, Type, ColumnCount };

    explicit GpuProcessTableModel(QObject* parent = nullptr);

    void setSnapshot(const GpuProcessSnapshot& snapshot);
    // Not this machine's live view: no rows, and message() says so.
    void setInactive();
    bool inactive() const { return m_inactive; }
    const std::optional<GpuProcessSnapshot>& snapshot() const { return m_snapshot; }

    // Why there are no rows, where the panel shows it instead of an empty table: with no GPU,
    // every backend tried and why it did not answer. Empty when there are rows.
    QString message() const;
    // Under the table: the GPUs whose processes could not be listed, and why.
    QString footnote() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    struct Row {
        int gpu = 0;
        GpuProcessSnapshot::Process process;
    };
    QVariant value(const Row& row, int column) const;

    std::vector<Row> m_rows;
    std::optional<GpuProcessSnapshot> m_snapshot;
    bool m_inactive = false;
};

} // namespace tierscope
