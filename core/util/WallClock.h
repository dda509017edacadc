#pragma once

#include "core/util/ClockSource.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

namespace tierscope {

// Wall-clock timestamps derived from the monotonic clock, so samples of one series are always
// in order: wall = monotonic + offset. The offset is read at construction and again by
// resync() (the scheduler calls it once a second); when the system clock has moved by more
// than kStepThresholdNs against the monotonic clock (an NTP step, a manual change, a suspend)
// the new offset is adopted and the step reported:
// - forward (the wall clock jumped ahead, and after every suspend): at once; the series show
//   a gap, as they should;
// - backward: slewed, never jumped, so no timestamp goes back: wall time advances at half
//   speed until it has caught up with the new offset (for 2x the step), then follows it.
// Thread-safe: readers stamp while the scheduler resyncs.
class WallClock {
  public:
    static constexpr std::int64_t kStepThresholdNs = 100'000'000;

    struct Step {
        std::int64_t atWallNs = 0;    // the moment, in the mapping after the step
        std::int64_t oldOffsetNs = 0; // wall minus monotonic before
        std::int64_t newOffsetNs = 0; // and after
        std::int64_t stepNs() const { return newOffsetNs - oldOffsetNs; }
    };

    explicit WallClock(const ClockSource& source = ClockSource::system());
    WallClock(const WallClock&) = delete;
    WallClock& operator=(const WallClock&) = delete;

    std::int64_t nowNs() const { return mapNs(m_source.monotonicNs()); }
    std::int64_t toWallNs(std::chrono::steady_clock::time_point t) const;
    // The same for a monotonic time in ns since steady_clock's epoch.
    std::int64_t mapNs(std::int64_t monotonicNs) const;

    // Re-reads the offset; returns the step when it moved by more than the threshold, after
    // telling the listener.
    std::optional<Step> resync() const;
    // Called (on the resyncing thread) for every step, e.g. to store a clock-step event.
    void onStep(std::function<void(const Step&)> listener);

    static std::int64_t systemNowNs();

  private:
    std::int64_t offsetAt(std::int64_t monotonicNs) const; // under m_mutex

    const ClockSource& m_source;
    mutable std::mutex m_mutex;
    // The latest step: before stepMonoNs the previous offset applies; after it the target, at
    // once when it is larger, else approached at half the rate of the monotonic clock.
    mutable std::int64_t m_stepMonoNs = 0;
    mutable std::int64_t m_previousOffsetNs = 0;
    mutable std::int64_t m_targetOffsetNs = 0;
    std::function<void(const Step&)> m_listener;
};

} // namespace tierscope
