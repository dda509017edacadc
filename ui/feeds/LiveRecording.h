#pragma once

#include "collectors/Recorder.h"
#include "ui/feeds/DeviceRecordMetaType.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

class QTimer;

namespace tierscope {

class LiveBuffer;

// Starts and stops the recording behind the live view on a worker thread: device discovery,
// creating the session and stopping the collectors all touch the disk, so none of it may run
// on the GUI thread. Readings also go to a LiveBuffer for the view.
class LiveRecording : public QObject {
    Q_OBJECT
  public:
    struct Request {
        QString db;
        QString label;
        QString storageProfile;
        int intervalMs = 100;
        QStringList engines;
    };

    explicit LiveRecording(LiveBuffer& buffer, QObject* parent = nullptr);
    ~LiveRecording() override;

    void start(const Request& request);
    void stop();
    void addMarker(const QString& text, qint64 tNs);

  signals:
    void started(qint64 sessionId, const std::vector<tierscope::DeviceRecord>& devices);
    void stopped(qint64 sessionId, const QString& error);
    void markerAdded(qint64 tNs, const QString& text);
    void failed(const QString& message);

  private:
    LiveBuffer& m_buffer;
    std::unique_ptr<Recorder> m_recorder;
    QString m_db;
    QTimer* m_watchdog = nullptr;
};

} // namespace tierscope
