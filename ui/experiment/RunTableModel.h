#pragma once

#include "core/view/RunRequestSummary.h"

#include <QAbstractTableModel>
#include <vector>

namespace tierscope {

// The per-run summary table of a load or run session: one row per run that sent requests,
// with the figures `compare` uses for that run. Qt::UserRole holds the raw number (seconds,
// tokens/s), for sorting; an absent figure is an empty cell, never 0.
class RunTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Run,
        Group,
        Repetition,
        Status,
        Requests,
        FailureRate,
        TtftP50,
        TtftP99,
        OutputThroughput,
        RequestThroughput,
        ColumnCount
    };

    explicit RunTableModel(QObject* parent = nullptr);

    void setRows(std::vector<RunRequestSummary::Row> rows);
    const std::vector<RunRequestSummary::Row>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant value(const RunRequestSummary::Row& row, int column) const;
    QString text(const RunRequestSummary::Row& row, int column) const;

    std::vector<RunRequestSummary::Row> m_rows;
};

} // namespace tierscope
