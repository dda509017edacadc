#include "ui/feeds/GpuProcessTableModel.h"

#include "core/util/UnitFormat.h"

#include <QStringList>

namespace tierscope {

GpuProcessTableModel::GpuProcessTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuProcessTableModel::setSnapshot(const GpuProcessSnapshot& snapshot) {
    beginResetModel();
    m_inactive = false;
    m_snapshot = snapshot;
    m_rows.clear();
    for (const auto& gpu : snapshot.gpus)
        if (gpu.processes)
            for (const auto& p : *gpu.processes)
                m_rows.push_back({gpu.index, p});
    endResetModel();
}

void GpuProcessTableModel::setInactive() {
    beginResetModel();
    m_inactive = true;
    m_snapshot.reset();
    m_rows.clear();
    endResetModel();
}

QString GpuProcessTableModel::message() const {
    if (!m_rows.empty())
        return {};
    if (m_inactive)
        return tr("GPUs and their processes are shown in the live view of this machine.");
    if (!m_snapshot)
        return tr("Opening the GPU libraries ...");
    if (m_snapshot->gpus.empty()) {
        QStringList lines{tr("No GPU answered. Backends tried:")};
        for (const auto& s : m_snapshot->statuses)
            lines << QString::fromStdString(s.summary());
        return lines.join(QLatin1Char('\n'));
    }
    bool anyListed = false;
    for (const auto& gpu : m_snapshot->gpus)
        anyListed = anyListed || gpu.processes.has_value();
    if (!anyListed)
        return tr("No GPU here lists its processes.");
    return tr("No process is using a GPU.");
}

QString GpuProcessTableModel::footnote() const {
    if (m_inactive || !m_snapshot)
        return {};
    QStringList parts;
    for (const auto& gpu : m_snapshot->gpus)
        if (!gpu.processes)
            parts << tr("GPU %1: processes not listed (%2)")
                         .arg(gpu.index)
                         .arg(QString::fromStdString(gpu.reason));
    return parts.join(QLatin1Char('\n'));
}

int GpuProcessTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GpuProcessTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuProcessTableModel::value(const Row& row, int column) const {
    const auto& p = row.process;
    switch (column) {
    case Gpu:
        return row.gpu;
    case Pid:
        return p.pid;
    case Name:
        return p.name ? QVariant(QString::fromStdString(*p.name)) : QVariant();
    case Vram:
        return p.vramBytes ? QVariant(*p.vramBytes) : QVariant();
    case Type: // as nvidia-smi writes it
        return p.compute && p.graphics ? QStringLiteral("C+G")
               : p.graphics            ? QStringLiteral("G")
                                       : QStringLiteral("C");
    default:
        return {};
    }
}

QVariant GpuProcessTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& row = m_rows[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::UserRole:
        return value(row, column);
    case Qt::DisplayRole: {
        const QVariant v = value(row, column);
        if (column == Vram && v.isValid())
            return QString::fromStdString(UnitFormat::bytes(v.toDouble()));
        return v;
    }
    case Qt::TextAlignmentRole:
        return column == Name || column == Type ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == Name && !row.process.name)
            return tr("pid %1 has exited, or /proc/%1/comm could not be read").arg(row.process.pid);
        if (column == Vram && !row.process.vramBytes)
            return tr("The GPU library did not report this process's VRAM on this GPU");
        return {};
    default:
        return {};
    }
}

QVariant GpuProcessTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Gpu:
            return tr("The GPU's number, n of the gpu/<n>/ charts");
        case Vram:
            return tr("VRAM this process holds on this GPU, as NVML or rocm-smi reports it");
        case Type:
            return tr("C: compute, G: graphics (NVML's two process lists)");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Gpu:
        return tr("GPU");
    case Pid:
        return tr("PID");
    case Name:
        return tr("Name");
    case Vram:
        return tr("VRAM");
    case Type:
        return tr("Type");
    default:
        return {};
    }
}

} // namespace tierscope
