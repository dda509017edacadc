#include "ui/sessions/SessionFilterProxy.h"

#include "ui/sessions/SessionListModel.h"

namespace tierscope {

SessionFilterProxy::SessionFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setFilterRole(SessionListModel::SearchRole);
    setFilterKeyColumn(SessionListModel::Label);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setRecursiveFilteringEnabled(true);
}

void SessionFilterProxy::setRequestsOnly(bool on) {
    if (on == m_requestsOnly)
        return;
    m_requestsOnly = on;
    invalidateFilter();
}

bool SessionFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (m_requestsOnly) {
        // A group row (no parent) never shows by itself: only through a session that does.
        if (!sourceParent.isValid())
            return false;
        const QModelIndex row = sourceModel()->index(sourceRow, 0, sourceParent);
        if (!row.data(SessionListModel::HasRequestsRole).toBool())
            return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace tierscope
