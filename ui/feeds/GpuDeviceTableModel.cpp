#include "ui/feeds/GpuDeviceTableModel.h"

#include "core/util/UnitFormat.h"

#include <map>

namespace tierscope {

GpuDeviceTableModel::GpuDeviceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuDeviceTableModel::setGpus(const std::vector<GpuProcessSnapshot::Gpu>& gpus) {
    m_gpus = gpus;
    rebuild();
}

void GpuDeviceTableModel::setFigures(const std::vector<GpuFigures>& figures) {
    m_figures = figures;
    rebuild();
}

void GpuDeviceTableModel::clear() {
    m_gpus.clear();
    m_figures.clear();
    rebuild();
}

void GpuDeviceTableModel::rebuild() {
    std::map<int, Row> byIndex;
    for (const auto& g : m_gpus) {
        Row& r = byIndex[g.index];
        r.index = g.index;
        r.model = QString::fromStdString(g.model);
        r.busId = QString::fromStdString(g.busId);
        r.figures.index = g.index;
    }
    for (const auto& f : m_figures) {
        Row& r = byIndex[f.index];
        r.index = f.index;
        r.figures = f;
    }
    std::vector<Row> rows;
    for (auto& [n, r] : byIndex)
        rows.push_back(std::move(r));
    // The same GPUs as before: only the figures changed, so the view keeps its scroll position.
    const bool sameRows = rows.size() == m_rows.size() &&
                          std::equal(rows.begin(), rows.end(), m_rows.begin(),
                                     [](const Row& a, const Row& b) { return a.index == b.index; });
    if (sameRows) {
        m_rows = std::move(rows);
        if (!m_rows.empty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int GpuDeviceTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GpuDeviceTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

QVariant number(const std::optional<double>& v) {
    return v ? QVariant(*v) : QVariant();
}

} // namespace

QVariant GpuDeviceTableModel::value(const Row& row, int column) const {
    const auto& f = row.figures;
    switch (column) {
    case Gpu:
        return row.index;
    case Model:
        return row.model;
    case Busy:
        return number(f.busyPct);
    case Vram:
        return number(f.vramUsedBytes);
    case Power:
        return number(f.powerW);
    case Temperature:
        return number(f.tempC);
    case PcieRx: // AMD counts both directions together: shown once, under rx, marked so
        return number(f.pcieRxBytesPerS ? f.pcieRxBytesPerS : f.pcieBothBytesPerS);
    case PcieTx:
        return number(f.pcieTxBytesPerS);
    default:
        return {};
    }
}

QString GpuDeviceTableModel::text(const Row& row, int column) const {
    const auto& f = row.figures;
    const QVariant v = value(row, column);
    if (column == Vram) {
        if (!f.vramUsedBytes)
            return {};
        const QString used = QString::fromStdString(UnitFormat::bytes(*f.vramUsedBytes));
        return f.vramTotalBytes
                   ? tr("%1 / %2").arg(used,
                                       QString::fromStdString(UnitFormat::bytes(*f.vramTotalBytes)))
                   : used;
    }
    if (!v.isValid())
        return {};
    switch (column) {
    case Busy:
        return QStringLiteral("%1 %").arg(v.toDouble(), 0, 'f', 0);
    case Power:
        return QStringLiteral("%1 W").arg(v.toDouble(), 0, 'f', 0);
    case Temperature:
        return QStringLiteral("%1 °C").arg(v.toDouble(), 0, 'f', 0);
    case PcieRx:
    case PcieTx: {
        const QString rate = QString::fromStdString(UnitFormat::bytesPerSecond(v.toDouble()));
        return column == PcieRx && !f.pcieRxBytesPerS ? tr("≤ %1 (rx+tx)").arg(rate) : rate;
    }
    default:
        return v.toString();
    }
}

QVariant GpuDeviceTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& row = m_rows[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::UserRole:
        return value(row, column);
    case Qt::DisplayRole:
        return text(row, column);
    case Qt::TextAlignmentRole:
        return column == Model ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == Model && !row.busId.isEmpty())
            return tr("%1 at %2").arg(row.model, row.busId);
        if (column == Temperature && !row.figures.tempSensor.empty())
            return tr("AMD's %1 sensor").arg(QString::fromStdString(row.figures.tempSensor));
        if (!value(row, column).isValid() && column != Model)
            return tr("No recent sample: the figures come from the live recording");
        return {};
    default:
        return {};
    }
}

QVariant GpuDeviceTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Busy:
            return tr("GPU utilisation (gpu/<n>/busy_pct)");
        case PcieRx:
            return tr("PCIe bytes received per second; AMD counts both directions together");
        case PcieTx:
            return tr("PCIe bytes sent per second");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Gpu:
        return tr("GPU");
    case Model:
        return tr("Model");
    case Busy:
        return tr("Busy");
    case Vram:
        return tr("VRAM");
    case Power:
        return tr("Power");
    case Temperature:
        return tr("Temp");
    case PcieRx:
        return tr("PCIe rx");
    case PcieTx:
        return tr("PCIe tx");
    default:
        return {};
    }
}

} // namespace tierscope
