#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

class QTimer;

namespace tierscope {

class LiveBuffer;
class PrometheusRecording;

// The live view fed from a Prometheus server instead of this machine's collectors. Lives on a
// worker thread: every period it reads the newest range through the metric templates into a
// session of the workspace and into the live buffer.
class PrometheusFeed : public QObject {
    Q_OBJECT
  public:
    struct Request {
        QString db;
        QString url;
        QString nodes = ".+";
        double stepS = 1.0;
        QString label;
    };

    explicit PrometheusFeed(LiveBuffer& buffer, QObject* parent = nullptr);
    ~PrometheusFeed() override;

    void start(const Request& request);
    void stop();
    // The nodes (instance labels) the server scrapes that match the regex, with up/down.
    void listNodes(const QString& url, const QString& nodes);
    // Whether the server answers a query at all: the GUI switches the live view only then.
    void probe(const QString& url);

  signals:
    void started(qint64 sessionId);
    void stopped(qint64 sessionId);
    void failed(const QString& message); // the feed goes on; the next period retries
    void nodesListed(const QStringList& nodes, const QString& error);
    void probed(const QString& url, const QString& error); // error empty: it answers

  private:
    void poll();

    LiveBuffer& m_buffer;
    Request m_request;
    std::unique_ptr<PrometheusRecording> m_recording;
    QTimer* m_timer = nullptr;
    QString m_lastError;
};

} // namespace tierscope
