#include "ui/experiment/RunTableModel.h"

#include "core/compare/RunKpis.h"

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

// A warm TTFT is milliseconds, a cold one seconds: "28.4 ms", "9.30 s".
QString duration(double s) {
    return s < 1 ? QString("%1 ms").arg(s * 1e3, 0, 'f', 1) : QString("%1 s").arg(s, 0, 'f', 2);
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
    const double x = v.toDouble();
    switch (column) {
    case TtftP50:
    case TtftP99:
        return duration(x);
    case FailureRate:
        return QString("%1 %").arg(x, 0, 'f', 1);
    case OutputThroughput:
        return QString("%1 tok/s").arg(x, 0, 'f', 1);
    case RequestThroughput:
        return QString("%1 req/s").arg(x, 0, 'f', 2);
    case Requests:
        return QString::number(std::llround(x));
    default:
        return v.toString();
    }
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
    case FailureRate:
        return tr("Failed");
    case TtftP50:
        return tr("TTFT p50");
    case TtftP99:
        return tr("TTFT p99");
    case OutputThroughput:
        return tr("Output");
    case RequestThroughput:
        return tr("Requests/s");
    default:
        return {};
    }
}

} // namespace tierscope
