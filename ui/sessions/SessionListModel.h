#pragma once

#include "core/model/SessionInfo.h"

#include <QAbstractItemModel>
#include <optional>
#include <vector>

namespace tierscope {

// Past sessions grouped by storage profile: top-level rows are profiles, their children the
// sessions (label, start, duration), newest first.
class SessionListModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column { Label, Start, Duration, ColumnCount };
    static constexpr int SessionIdRole = Qt::UserRole + 1;
    // What the browser's search matches: label, profile, host, notes and start (UTC).
    static constexpr int SearchRole = Qt::UserRole + 2;
    static constexpr int HasRequestsRole = Qt::UserRole + 3; // bool, on session rows

    explicit SessionListModel(QObject* parent = nullptr);
    // False, and no reset (the view keeps its selection and scroll), when nothing changed.
    bool setSessions(const std::vector<SessionInfo>& sessions);
    // 0 for a profile row or an invalid index.
    std::int64_t sessionId(const QModelIndex& index) const;
    QModelIndex indexOfSession(std::int64_t sessionId) const;
    std::optional<SessionInfo> session(std::int64_t sessionId) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    struct Group {
        QString profile;
        std::vector<SessionInfo> sessions;
    };
    std::vector<Group> m_groups;
    std::vector<SessionInfo> m_sessions; // as last set, to tell whether anything changed
};

} // namespace tierscope
