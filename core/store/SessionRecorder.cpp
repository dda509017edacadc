#include "core/store/SessionRecorder.h"

namespace tierscope {

SessionRecorder::SessionRecorder(StoreWriter& writer, std::int64_t sessionId)
    : m_writer(writer), m_sessionId(sessionId) {}

void SessionRecorder::write(std::int64_t tNs, std::span<const Reading> readings) {
    std::lock_guard lock(m_mutex);
    m_scratch.clear();
    for (const Reading& r : readings) {
        auto it = m_handles.find(r.metric.path);
        if (it == m_handles.end())
            it = m_handles.emplace(r.metric.path, m_writer.defineMetric(m_sessionId, r.metric))
                     .first;
        m_scratch.push_back({it->second, tNs, r.value});
    }
    m_writer.append(m_scratch);
}

std::size_t SessionRecorder::metricCount() const {
    std::lock_guard lock(m_mutex);
    return m_handles.size();
}

} // namespace tierscope
