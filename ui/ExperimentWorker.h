#pragma once

#include <QObject>
#include <QString>
#include <atomic>

namespace tierscope {

// Runs an experiment plan on a worker thread and reports each run as it starts and ends.
// cancel() may be called from any thread: the run in progress stops, completed runs stay.
class ExperimentWorker : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;

    void run(const QString& db, const QString& planText);
    void cancel() { m_cancel = true; }

  signals:
    void stepStarted(int index);
    void stepFinished(int index, const QString& status, const QString& detail);
    void message(const QString& text);
    void finished(qint64 sessionId, int failed, bool incomplete, const QString& error);

  private:
    std::atomic<bool> m_cancel{false};
};

} // namespace tierscope
