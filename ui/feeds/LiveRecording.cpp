#include "ui/feeds/LiveRecording.h"

#include "core/store/LiveBuffer.h"
#include "core/store/Store.h"
#include "core/util/WallClock.h"

#include <QTimer>
#include <filesystem>

namespace tierscope {

LiveRecording::LiveRecording(LiveBuffer& buffer, QObject* parent)
    : QObject(parent), m_buffer(buffer) {
    qRegisterMetaType<std::vector<tierscope::DeviceRecord>>();
}

LiveRecording::~LiveRecording() {
    stop();
}

void LiveRecording::start(const Request& request) {
    stop();
    try {
        std::error_code ec;
        std::filesystem::create_directories(
            std::filesystem::path(request.db.toStdString()).parent_path(), ec);
        Recorder::Options o;
        o.dbPath = request.db.toStdString();
        o.label = request.label.toStdString();
        o.storageProfile = request.storageProfile.toStdString();
        o.interval = std::chrono::milliseconds(request.intervalMs);
        for (const auto& url : request.engines) {
            EngineMetricsCollector::Options e;
            e.url = url.toStdString();
            o.engines.push_back(e);
        }
        o.observer = &m_buffer;
        m_recorder = std::make_unique<Recorder>(o);
        m_recorder->start();
        m_db = request.db;
        // A write that fails (disk full, file-size limit) stops the writer; stop the recording
        // too and say why, instead of sampling into nothing.
        if (!m_watchdog) {
            m_watchdog = new QTimer(this);
            connect(m_watchdog, &QTimer::timeout, this, [this] {
                if (m_recorder && m_recorder->error())
                    stop();
            });
        }
        m_watchdog->start(500);
        emit started(m_recorder->sessionId(), m_recorder->devices());
    } catch (const std::exception& e) {
        m_recorder.reset();
        emit failed(QString::fromStdString(e.what()));
    }
}

void LiveRecording::stop() {
    if (!m_recorder)
        return;
    const qint64 id = m_recorder->sessionId();
    if (m_watchdog)
        m_watchdog->stop();
    m_recorder->stop();
    const auto error = m_recorder->error();
    m_recorder.reset();
    emit stopped(id, error ? QString::fromStdString(*error) : QString());
}

void LiveRecording::addMarker(const QString& text, qint64 tNs) {
    if (!m_recorder)
        return;
    try {
        Store store(m_db.toStdString(), Store::Mode::ReadWrite);
        store.addEvent(m_recorder->sessionId(), tNs, "marker", text.toStdString());
        emit markerAdded(tNs, text);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
