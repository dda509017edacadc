#include "ui/sessions/SessionListModel.h"

#include "core/util/UnitFormat.h"

#include <algorithm>
#include <map>

namespace tierscope {

namespace {

// Internal ids: 0 marks a profile row; a session row stores its group index + 1.
constexpr quintptr kGroupRow = 0;

bool same(const SessionInfo& a, const SessionInfo& b) {
    return a.id == b.id && a.label == b.label && a.storageProfile == b.storageProfile &&
           a.host == b.host && a.startNs == b.startNs && a.endNs == b.endNs && a.notes == b.notes &&
           a.hasRequests == b.hasRequests;
}

} // namespace

SessionListModel::SessionListModel(QObject* parent) : QAbstractItemModel(parent) {}

bool SessionListModel::setSessions(const std::vector<SessionInfo>& sessions) {
    if (std::equal(sessions.begin(), sessions.end(), m_sessions.begin(), m_sessions.end(), same))
        return false;
    m_sessions = sessions;
    beginResetModel();
    std::map<QString, std::vector<SessionInfo>> byProfile;
    for (const auto& s : sessions)
        byProfile[QString::fromStdString(s.storageProfile)].push_back(s);
    m_groups.clear();
    for (auto& [profile, list] : byProfile) {
        std::sort(list.begin(), list.end(),
                  [](const SessionInfo& a, const SessionInfo& b) { return a.startNs > b.startNs; });
        m_groups.push_back({profile, std::move(list)});
    }
    endResetModel();
    return true;
}

std::int64_t SessionListModel::sessionId(const QModelIndex& index) const {
    if (!index.isValid() || index.internalId() == kGroupRow)
        return 0;
    return m_groups[index.internalId() - 1].sessions[static_cast<std::size_t>(index.row())].id;
}

QModelIndex SessionListModel::indexOfSession(std::int64_t sessionId) const {
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        for (std::size_t r = 0; r < m_groups[g].sessions.size(); ++r)
            if (m_groups[g].sessions[r].id == sessionId)
                return createIndex(static_cast<int>(r), 0, static_cast<quintptr>(g) + 1);
    return {};
}

std::optional<SessionInfo> SessionListModel::session(std::int64_t sessionId) const {
    for (const auto& s : m_sessions)
        if (s.id == sessionId)
            return s;
    return std::nullopt;
}

QModelIndex SessionListModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kGroupRow);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex SessionListModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kGroupRow)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kGroupRow);
}

int SessionListModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.internalId() != kGroupRow || parent.column() != 0)
        return 0;
    return static_cast<int>(m_groups[static_cast<std::size_t>(parent.row())].sessions.size());
}

int SessionListModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant SessionListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    if (index.internalId() == kGroupRow) {
        const auto& g = m_groups[static_cast<std::size_t>(index.row())];
        if ((role == Qt::DisplayRole || role == SearchRole) && index.column() == Label)
            return g.profile.isEmpty() ? tr("(no storage profile)") : g.profile;
        if (role == Qt::DisplayRole && index.column() == Duration)
            return tr("%n session(s)", "", static_cast<int>(g.sessions.size()));
        return {};
    }
    const auto& s =
        m_groups[index.internalId() - 1].sessions[static_cast<std::size_t>(index.row())];
    if (role == SessionIdRole)
        return QVariant::fromValue<qint64>(s.id);
    if (role == HasRequestsRole)
        return s.hasRequests;
    if (role == Qt::ToolTipRole)
        return tr("Session %1 on %2").arg(s.id).arg(QString::fromStdString(s.host)) +
               (s.notes.empty() ? QString() : "\n" + QString::fromStdString(s.notes));
    if (role == SearchRole)
        return QStringList{QString::fromStdString(s.label),
                           QString::fromStdString(s.storageProfile),
                           QString::fromStdString(s.host),
                           QString::fromStdString(s.notes),
                           QString::fromStdString(UnitFormat::utcTime(s.startNs)),
                           QString("session %1").arg(s.id)}
            .join('\n');
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Label:
        return s.label.empty() ? tr("session %1").arg(s.id) : QString::fromStdString(s.label);
    case Start:
        return QString::fromStdString(UnitFormat::utcTime(s.startNs));
    case Duration:
        return s.endNs ? QString::fromStdString(
                             UnitFormat::seconds(static_cast<double>(*s.endNs - s.startNs) / 1e9))
               : s.state == "recording"   ? tr("recording")
               : s.state == "interrupted" ? tr("interrupted")
                                          : tr("open or interrupted");
    default:
        return {};
    }
}

QVariant SessionListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Label:
        return tr("Label");
    case Start:
        return tr("Start (UTC)");
    case Duration:
        return tr("Duration");
    default:
        return {};
    }
}

} // namespace tierscope
