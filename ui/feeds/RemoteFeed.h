#pragma once

#include "ui/feeds/DeviceRecordMetaType.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace tierscope {

class LiveBuffer;

// The live view fed from a server over SSH (RemoteMirror): the server records into its own
// workspace, and what it streams goes into the live buffer and a mirror session of the local
// workspace. Connecting, streaming and stopping all block on the network, so they run on a
// thread of this object's own; its signals arrive queued on the owner's thread.
class RemoteFeed : public QObject {
    Q_OBJECT
  public:
    struct Request {
        QString db;
        QString target; // ssh://[user@]host[:port]
        QString interval = "1s";
        QString label;
    };

    explicit RemoteFeed(LiveBuffer& buffer, QObject* parent = nullptr);
    ~RemoteFeed() override; // stops and waits for the thread

    // Returns at once; started or failed follow. A running feed is stopped first.
    void start(const Request& request);
    // Returns at once; stopped follows when the server has closed its session.
    void stop();
    bool running() const { return m_thread.joinable() && !m_done; }

  signals:
    void started(qint64 sessionId, const QString& host,
                 const std::vector<tierscope::DeviceRecord>& devices);
    // Why it ended, one line; empty when stopped on request.
    void stopped(qint64 sessionId, const QString& host, const QString& error);
    void failed(const QString& message); // could not connect: unreachable, key refused, ...

  private:
    void join();

    LiveBuffer& m_buffer;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_done{true};
};

} // namespace tierscope
