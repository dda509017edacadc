#pragma once

#include "collectors/host/ProcessIoSample.h"
#include "ui/feeds/ProcessIoSnapshot.h"

#include <QObject>
#include <QString>
#include <chrono>
#include <vector>

class QTimer;

namespace tierscope {

// Scans /proc/<pid>/io once a period on the thread it lives on (a /proc walk opens three files
// per process, which is I/O the GUI thread must not wait for) and posts each period's top
// processes back as a snapshot.
class ProcessIoSampler : public QObject {
    Q_OBJECT
  public:
    static constexpr int kTopRows = 10;

    explicit ProcessIoSampler(QString procRoot = QStringLiteral("/proc"),
                              QObject* parent = nullptr);

    // Both run on the sampler's thread (QMetaObject::invokeMethod): the timer belongs to it.
    void start(int periodMs = 1000);
    void stop();
    bool running() const;

  signals:
    void sampled(const tierscope::ProcessIoSnapshot& snapshot);

  private:
    void sample();

    QString m_procRoot;
    QTimer* m_timer = nullptr;
    std::vector<ProcessIoSample> m_previous;
    std::chrono::steady_clock::time_point m_previousAt;
    bool m_havePrevious = false;
};

} // namespace tierscope
