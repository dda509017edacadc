#include "core/util/WallClock.h"

#include <algorithm>
#include <cstdlib>

namespace tierscope {

WallClock::WallClock(const ClockSource& source) : m_source(source) {
    const std::int64_t mono = m_source.monotonicNs();
    m_stepMonoNs = mono;
    m_targetOffsetNs = m_previousOffsetNs = m_source.wallNs() - mono;
}

std::int64_t WallClock::toWallNs(std::chrono::steady_clock::time_point t) const {
    return mapNs(
        std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

std::int64_t WallClock::mapNs(std::int64_t monotonicNs) const {
    std::lock_guard lock(m_mutex);
    return monotonicNs + offsetAt(monotonicNs);
}

std::int64_t WallClock::offsetAt(std::int64_t monotonicNs) const {
    // A time point from before the latest step maps as it did just before it.
    if (monotonicNs < m_stepMonoNs || m_targetOffsetNs >= m_previousOffsetNs)
        return monotonicNs < m_stepMonoNs ? m_previousOffsetNs : m_targetOffsetNs;
    // Backward: give back half of each monotonic nanosecond until the target is reached.
    return std::max(m_targetOffsetNs, m_previousOffsetNs - (monotonicNs - m_stepMonoNs) / 2);
}

std::optional<WallClock::Step> WallClock::resync() const {
    const std::int64_t mono = m_source.monotonicNs();
    const std::int64_t measured = m_source.wallNs() - mono;
    Step step;
    std::function<void(const Step&)> listener;
    {
        std::lock_guard lock(m_mutex);
        if (std::abs(measured - m_targetOffsetNs) <= kStepThresholdNs)
            return std::nullopt;
        step.oldOffsetNs = m_targetOffsetNs;
        step.newOffsetNs = measured;
        m_previousOffsetNs = offsetAt(mono); // where the mapping stands now: continuous
        m_stepMonoNs = mono;
        m_targetOffsetNs = measured;
        step.atWallNs = mono + offsetAt(mono);
        listener = m_listener;
    }
    if (listener)
        listener(step);
    return step;
}

void WallClock::onStep(std::function<void(const Step&)> listener) {
    std::lock_guard lock(m_mutex);
    m_listener = std::move(listener);
}

std::int64_t WallClock::systemNowNs() {
    return ClockSource::system().wallNs();
}

} // namespace tierscope
