#pragma once

#include <cstdint>

namespace tierscope {

// Where WallClock reads time: the machine's clocks, or a test's, which can step the wall
// clock as an NTP step, a manual change or a suspend would.
class ClockSource {
  public:
    virtual ~ClockSource() = default;
    // steady_clock (CLOCK_MONOTONIC) time since its epoch, in ns.
    virtual std::int64_t monotonicNs() const = 0;
    // system_clock (CLOCK_REALTIME) time since the Unix epoch, in ns.
    virtual std::int64_t wallNs() const = 0;

    // The machine's clocks.
    static const ClockSource& system();
};

} // namespace tierscope
