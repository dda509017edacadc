#pragma once

#include "ui/feeds/ProcessIoSnapshot.h"

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace tierscope {

// The live view's "Top I/O processes": the processes that moved the most bytes through the
// block layer in the last interval, read and write together, highest first. Qt::UserRole holds
// the raw number (pid, bytes/s, share 0..1) for sorting and tests; an absent share is an empty
// cell, never 0 %.
class ProcessIoTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Pid, Name, Read, Write, Share, ColumnCount };

    explicit ProcessIoTableModel(QObject* parent = nullptr);

    void setSnapshot(const ProcessIoSnapshot& snapshot);
    // Not this machine's live view (a recorded session, a server, Prometheus): no rows, and
    // message() says so.
    void setInactive();
    bool inactive() const { return m_inactive; }

    // Why there are no rows, in words, where the panel shows it instead of an empty table;
    // empty when there are rows.
    QString message() const;
    // Under the table: all processes together, and who could not be read.
    QString footnote() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant value(const ProcessIoTop::Row& row, int column) const;

    std::vector<ProcessIoTop::Row> m_rows;
    std::optional<ProcessIoSnapshot> m_snapshot; // absent: inactive or nothing sampled yet
    bool m_inactive = false;
};

} // namespace tierscope
