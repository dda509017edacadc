#include "ui/feeds/ProcessIoTableModel.h"

#include "core/util/UnitFormat.h"

namespace tierscope {

ProcessIoTableModel::ProcessIoTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProcessIoTableModel::setSnapshot(const ProcessIoSnapshot& snapshot) {
    beginResetModel();
    m_inactive = false;
    m_snapshot = snapshot;
    m_rows = snapshot.top ? snapshot.top->byTotal : std::vector<ProcessIoTop::Row>{};
    endResetModel();
}

void ProcessIoTableModel::setInactive() {
    beginResetModel();
    m_inactive = true;
    m_snapshot.reset();
    m_rows.clear();
    endResetModel();
}

QString ProcessIoTableModel::message() const {
    if (!m_rows.empty())
        return {};
    if (m_inactive)
        return tr("Per-process I/O is shown in the live view of this machine.");
    if (!m_snapshot)
        return tr("Reading /proc/<pid>/io ...");
    if (m_snapshot->readable == 0)
        // The io file is 0400 and its read checks ptrace access: both are needed for other
        // users' processes, as measured (CAP_SYS_PTRACE alone is refused at open).
        return tr("No per-process I/O (not readable: run as root, or with CAP_SYS_PTRACE and "
                  "CAP_DAC_READ_SEARCH).");
    if (!m_snapshot->top)
        return tr("Measuring: rates need a second sample.");
    return tr("No process read from or wrote to storage in the last second.");
}

QString ProcessIoTableModel::footnote() const {
    if (m_inactive || !m_snapshot)
        return {};
    QStringList parts;
    if (const auto& top = m_snapshot->top)
        parts << tr("All processes: read %1, write %2")
                     .arg(QString::fromStdString(UnitFormat::bytesPerSecond(top->readBytesPerS)),
                          QString::fromStdString(UnitFormat::bytesPerSecond(top->writeBytesPerS)));
    if (m_snapshot->unreadable > 0 && m_snapshot->readable > 0)
        parts << (m_snapshot->unreadable == 1
                      ? tr("1 process not readable (other users' processes need root)")
                      : tr("%1 processes not readable (other users' processes need root)")
                            .arg(m_snapshot->unreadable));
    return parts.join(QStringLiteral(". "));
}

int ProcessIoTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ProcessIoTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProcessIoTableModel::value(const ProcessIoTop::Row& row, int column) const {
    switch (column) {
    case Pid:
        return row.pid;
    case Name:
        return QString::fromStdString(row.name);
    case Read:
        return row.readBytesPerS;
    case Write:
        return row.writeBytesPerS;
    case Share:
        return row.share ? QVariant(*row.share) : QVariant();
    default:
        return {};
    }
}

QVariant ProcessIoTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& row = m_rows[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::UserRole:
        return value(row, column);
    case Qt::DisplayRole: {
        QVariant v = value(row, column);
        if (!v.isValid())
            return {};
        if (column == Read || column == Write)
            return QString::fromStdString(UnitFormat::bytesPerSecond(v.toDouble()));
        if (column == Share) // a process that moved a few kB beside GB/s is not "0 %"
            return v.toDouble() > 0 && v.toDouble() < 0.005
                       ? QStringLiteral("<1 %")
                       : QStringLiteral("%1 %").arg(v.toDouble() * 100, 0, 'f', 0);
        return v;
    }
    case Qt::TextAlignmentRole:
        return column == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return tr("pid %1 (%2), process group %3: read %4, write %5")
            .arg(row.pid)
            .arg(QString::fromStdString(row.name))
            .arg(row.pgid)
            .arg(QString::fromStdString(UnitFormat::bytesPerSecond(row.readBytesPerS)),
                 QString::fromStdString(UnitFormat::bytesPerSecond(row.writeBytesPerS)));
    default:
        return {};
    }
}

QVariant ProcessIoTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Read:
            return tr("Bytes this process made the block layer read, per second (read_bytes "
                      "of /proc/<pid>/io); page-cache hits are not in it");
        case Write:
            return tr("Bytes this process dirtied or wrote for storage, per second "
                      "(write_bytes)");
        case Share:
            return tr("This process's part of all processes' reads and writes in the interval");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Pid:
        return tr("PID");
    case Name:
        return tr("Name");
    case Read:
        return tr("Read/s");
    case Write:
        return tr("Write/s");
    case Share:
        return tr("Share");
    default:
        return {};
    }
}

} // namespace tierscope
