#pragma once

#include <QList>
#include <QWidget>
#include <functional>
#include <optional>

class QCheckBox;
class QLineEdit;
class QMenu;
class QTreeView;

namespace tierscope {

class SessionFilterProxy;
class SessionListModel;

// The session browser: a search box over label, profile, host, notes and start date, a "with
// requests" filter, the sessions grouped by profile, open on a single click, and a context menu
// (open, compare, rename, notes, export CSV, delete). Store writes and exports run on the
// thread pool; the browser says `changed` when the workspace should be listed again.
class SessionBrowser : public QWidget {
    Q_OBJECT
  public:
    SessionBrowser(SessionListModel* model, QWidget* parent = nullptr);

    void setDatabase(const QString& db) { m_db = db; }
    // Sessions that must not be renamed away or deleted now (the running recording).
    void setBusy(std::function<bool(qint64)> busy) { m_busy = std::move(busy); }
    QTreeView* view() const { return m_view; }
    QLineEdit* searchBox() const { return m_search; }
    QCheckBox* requestsOnlyBox() const { return m_requestsOnly; }
    void select(qint64 sessionId);
    void clearSelection();
    // The selected sessions, oldest first.
    QList<qint64> selectedSessions() const;
    qint64 currentSession() const;
    // The menu for these sessions (what right-click shows); the caller owns it.
    QMenu* menuFor(const QList<qint64>& ids);
    // Row counts after the filter, for tests: sessions shown.
    int shownSessions() const;

    void rename(qint64 sessionId, const QString& label);
    void setNotes(qint64 sessionId, const QString& notes);
    // Asks first; a busy session is refused.
    void askDelete(const QList<qint64>& ids);
    // What `tierscope analyze --session N` prints (10 s windows), read off the GUI thread and
    // shown in a window of its own.
    void analyze(qint64 sessionId);
    void exportCsv(qint64 sessionId, const QString& path);

  signals:
    void openRequested(qint64 sessionId);
    void compareRequested(const QString& a, const QString& b);
    // The A/B overlay of two sessions, or (b empty) of one session's two arms.
    void overlayRequested(const QString& a, const QString& b);
    void changed();                                          // list the workspace again
    void done(const QString& message, const QString& error); // a write or export finished
    void analyzed(qint64 sessionId, const QString& text);

  private:
    void describe(qint64 sessionId, std::optional<QString> label, std::optional<QString> notes);

    SessionListModel* m_model;
    SessionFilterProxy* m_proxy;
    QTreeView* m_view;
    QLineEdit* m_search;
    QCheckBox* m_requestsOnly;
    QString m_db;
    std::function<bool(qint64)> m_busy = [](qint64) { return false; };
};

} // namespace tierscope
