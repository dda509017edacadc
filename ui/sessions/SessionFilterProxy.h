#pragma once

#include <QSortFilterProxyModel>

namespace tierscope {

// The session browser's filter: the search text (SearchRole, any case) and, when asked, only
// sessions that stored requests. A profile group shows when one of its sessions does.
class SessionFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit SessionFilterProxy(QObject* parent = nullptr);

    void setRequestsOnly(bool on);
    bool requestsOnly() const { return m_requestsOnly; }

  protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

  private:
    bool m_requestsOnly = false;
};

} // namespace tierscope
