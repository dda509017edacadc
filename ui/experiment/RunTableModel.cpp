#include "ui/experiment/RunTableModel.h"

#include "core/compare/RunKpis.h"
#include "core/util/UnitFormat.h"

#include <cmath>

namespace tierscope {

namespace {

const char* kpiOf(int column) {
    switch (column) {
    case RunTableModel::FailureRate:
        return "failure_rate";
    case RunTableModel::TtftP50:
        return "ttft_p50";
    case RunTableModel::TtftP99:
        return "ttft_p99";
    case RunTableModel::OutputThroughput:
        return "output_throughput";
    case RunTableModel::RequestThroughput:
        return "request_throughput";
    default:
        return nullptr;
    }
}

// The compare table's definition of the column's figure: its name, unit and rounding.
const RunKpis::Definition* definitionOf(int column) {
    const char* kpi = kpiOf(column);
    return kpi ? RunKpis::find(kpi) : nullptr;
}

} // namespace

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunTableModel::setRows(std::vector<RunRequestSummary::Row> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::value(const RunRequestSummary::Row& row, int column) const {
    switch (column) {
    case Run:
        return QVariant::fromValue<qint64>(row.run.id);
    case Group:
        return QString::fromStdString(row.group);
    case Repetition:
        return row.run.repetition;
    case Status:
        return QString::fromStdString(row.run.status);
    default:
        break;
    }
    const char* kpi = column == Requests ? RunKpis::kIssued : kpiOf(column);
    if (!kpi)
        return {};
    const auto it = row.kpis.find(kpi);
    return it == row.kpis.end() ? QVariant() : QVariant(it->second);
}

QString RunTableModel::text(const RunRequestSummary::Row& row, int column) const {
    const QVariant v = value(row, column);
    if (!v.isValid())
        return {}; // absent: an empty cell, never 0
    if (column == Requests)
        return QString::number(std::llround(v.toDouble()));
    if (const auto* kpi = definitionOf(column))
        return QString::fromStdString(UnitFormat::kpi(v.toDouble(), kpi->unit));
    return v.toString();
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() < 0 ||
        index.column() >= ColumnCount)
        return {};
    const auto& row = m_rows[static_cast<std::size_t>(index.row())];
    const bool words = index.column() == Group || index.column() == Status;
    switch (role) {
    case Qt::DisplayRole:
        return text(row, index.column());
    case Qt::UserRole:
        return value(row, index.column());
    case Qt::TextAlignmentRole:
        return words ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (!row.measurement)
            return tr("Run %1 is %2: not a measurement, and compare leaves it out")
                .arg(row.run.id)
                .arg(QString::fromStdString(row.run.status));
        if (index.column() == TtftP50 || index.column() == TtftP99)
            return RunKpis::openLoop(row.run) ? tr("From the scheduled send (open-loop rate)")
                                              : tr("From the actual send");
        return {};
    default:
        return {};
    }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Run:
        return tr("Run");
    case Group:
        return tr("Arm / workload");
    case Repetition:
        return tr("Rep");
    case Status:
        return tr("Status");
    case Requests:
        return tr("Requests");
    default:
        break;
    }
    // A figure's column is named as compare, the gates and the reports name it.
    const auto* kpi = definitionOf(section);
    return kpi ? QVariant(QString::fromStdString(kpi->displayName)) : QVariant();
}

} // namespace tierscope
