#pragma once

#include "ui/feeds/DeviceRecordMetaType.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <vector>

namespace tierscope {

class SampleSink;

// Runs an experiment plan on a worker thread and reports each run as it starts and ends.
// cancel() may be called from any thread: the run in progress stops, completed runs stay.
class ExperimentWorker : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;

    void run(const QString& db, const QString& planText);
    void cancel() { m_cancel = true; }
    // Also gets every reading of the experiment's recording (the window's live buffer); set
    // before run().
    void setObserver(SampleSink* observer) { m_observer = observer; }

  signals:
    void recording(qint64 sessionId, const std::vector<tierscope::DeviceRecord>& devices);
    // Before each stepStarted: what the run is. A load sweep's bisection adds runs to the
    // schedule while it runs, so the view cannot know them all in advance.
    void stepDescribed(int index, const QString& arm, const QString& experiment, bool warmup,
                       int repetition);
    void stepStarted(int index, qint64 atNs);
    void stepFinished(int index, const QString& status, const QString& detail);
    void message(const QString& text);
    // repetitions = "auto": after each block, every gate as SequentialLook judged it (JSON).
    void looked(int repetitions, const QString& lookJson);
    void finished(qint64 sessionId, int failed, bool incomplete, const QString& error);

  private:
    std::atomic<bool> m_cancel{false};
    SampleSink* m_observer = nullptr;
};

} // namespace tierscope
