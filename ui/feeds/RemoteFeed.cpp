#include "ui/feeds/RemoteFeed.h"

#include "core/store/LiveBuffer.h"
#include "remote/RemoteMirror.h"
#include "remote/SshSession.h"

#include <filesystem>

namespace tierscope {

RemoteFeed::RemoteFeed(LiveBuffer& buffer, QObject* parent) : QObject(parent), m_buffer(buffer) {
    qRegisterMetaType<std::vector<tierscope::DeviceRecord>>("std::vector<tierscope::DeviceRecord>");
}

RemoteFeed::~RemoteFeed() {
    m_stop = true;
    join();
}

void RemoteFeed::join() {
    if (m_thread.joinable())
        m_thread.join();
}

void RemoteFeed::start(const Request& request) {
    m_stop = true;
    join();
    m_stop = false;
    m_done = false;
    m_thread = std::thread([this, request] {
        const auto parsed = SshTarget::parse(request.target.trimmed().toStdString());
        if (!parsed.target || parsed.target->local) {
            emit failed(parsed.target ? tr("name a server: ssh://[user@]host[:port]")
                                      : QString::fromStdString(parsed.error));
            m_done = true;
            return;
        }
        try {
            SshSession session(*parsed.target);
            if (const auto failure = session.connect()) {
                emit failed(QString::fromStdString(failure->line));
                m_done = true;
                return;
            }
            std::error_code ec;
            std::filesystem::create_directories(
                std::filesystem::path(request.db.toStdString()).parent_path(), ec);
            m_buffer.clear(); // this machine's series are not the server's
            RemoteMirror::Options o;
            o.dbPath = request.db.toStdString();
            o.interval = request.interval.toStdString();
            o.label = request.label.toStdString();
            o.observer = &m_buffer;
            o.started = [this](std::int64_t local, const std::string& host, std::int64_t,
                               const std::vector<DeviceRecord>& devices) {
                emit started(local, QString::fromStdString(host), devices);
            };
            const auto result = RemoteMirror::run(session, o, m_stop);
            const QString host =
                QString::fromStdString(result.host.empty() ? parsed.target->host : result.host);
            if (result.localSession == 0 && !result.ok)
                emit failed(QString::fromStdString(result.error));
            else
                emit stopped(result.localSession, host,
                             result.ok || m_stop ? QString()
                                                 : QString::fromStdString(result.error));
        } catch (const std::exception& e) {
            emit failed(QString::fromStdString(e.what()));
        }
        m_done = true;
    });
}

void RemoteFeed::stop() {
    m_stop = true;
}

} // namespace tierscope
