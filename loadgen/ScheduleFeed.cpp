#include "loadgen/ScheduleFeed.h"

#include <algorithm>

namespace tierscope {

ScheduleFeed::ScheduleFeed(RequestSchedule& schedule, MakeBody makeBody, std::size_t most,
                           std::size_t mostBytes, std::size_t lanes)
    : m_schedule(schedule), m_makeBody(std::move(makeBody)), m_most(most), m_mostBytes(mostBytes),
      m_ready(std::max<std::size_t>(1, lanes)), m_thread([this] { run(); }) {}

ScheduleFeed::~ScheduleFeed() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void ScheduleFeed::run() {
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait(lock,
                           [&] { return m_stop || (m_count < m_most && m_bytes < m_mostBytes); });
            if (m_stop)
                return;
        }
        Ready ready;
        try {
            auto next = m_schedule.next();
            if (next) {
                ready.offset = next->offset;
                ready.conversation =
                    std::make_shared<const Conversation>(std::move(next->conversation));
                ready.body = m_makeBody(ready.conversation);
            }
            std::lock_guard lock(m_mutex);
            if (!next)
                m_over = true;
            else {
                m_bytes += ready.body.size();
                ready.sequence = m_read++;
                ++m_count;
                m_ready[m_nextLane].push_back(std::move(ready));
                m_nextLane = (m_nextLane + 1) % m_ready.size();
            }
        } catch (...) {
            std::lock_guard lock(m_mutex);
            m_error = std::current_exception();
            m_over = true;
        }
        m_changed.notify_all();
        std::lock_guard lock(m_mutex);
        if (m_over)
            return;
    }
}

void ScheduleFeed::waitFilled() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_over || m_count >= m_most || m_bytes >= m_mostBytes; });
}

std::optional<std::chrono::nanoseconds> ScheduleFeed::nextOffset(std::size_t lane) {
    std::lock_guard lock(m_mutex);
    if (!m_ready[lane].empty())
        return m_ready[lane].front().offset;
    if (m_error)
        std::rethrow_exception(m_error);
    return std::nullopt;
}

ScheduleFeed::Ready ScheduleFeed::pop(std::size_t lane) {
    Ready out;
    {
        std::lock_guard lock(m_mutex);
        out = std::move(m_ready[lane].front());
        m_ready[lane].pop_front();
        m_bytes -= out.body.size();
        --m_count;
    }
    m_changed.notify_all();
    return out;
}

bool ScheduleFeed::ended(std::size_t lane) const {
    std::lock_guard lock(m_mutex);
    return m_over && m_ready[lane].empty();
}

} // namespace tierscope
