#include "core/store/RecordingSession.h"

#include "core/model/TeeSink.h"
#include "core/util/WallClock.h"

namespace tierscope {

RecordingSession::RecordingSession(Options options, const SessionInfo& info)
    : m_options(std::move(options)),
      m_store(std::make_unique<Store>(m_options.dbPath, Store::Mode::ReadWrite)),
      m_id(m_store->createSession(info)),
      m_writer(std::make_unique<StoreWriter>(m_options.dbPath, m_options.writer)),
      m_recorder(std::make_unique<SessionRecorder>(*m_writer, m_id)) {
    if (m_options.observer)
        m_tee = std::make_unique<TeeSink>(*m_recorder, *m_options.observer);
}

RecordingSession::~RecordingSession() {
    finish(WallClock::systemNowNs());
}

SampleSink& RecordingSession::sink() {
    return m_tee ? *m_tee : static_cast<SampleSink&>(*m_recorder);
}

void RecordingSession::abandon() {
    m_finished = true;
    m_writer->stop();
}

bool RecordingSession::finish(std::int64_t endNs, const std::string& eventKind,
                              const std::string& eventText) {
    if (m_finished)
        return true;
    m_finished = true;
    m_writer->stop();
    try {
        if (!eventKind.empty())
            m_store->addEvent(m_id, endNs, eventKind, eventText);
        m_store->finishSession(m_id, endNs);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace tierscope
