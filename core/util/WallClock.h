#pragma once

#include <chrono>
#include <cstdint>

namespace tierscope {

// Wall-clock timestamps derived from the monotonic clock: the epoch offset is read once, so an
// NTP step or a manual clock change during a recording cannot reorder or duplicate samples.
class WallClock {
  public:
    WallClock();

    std::int64_t nowNs() const { return toWallNs(std::chrono::steady_clock::now()); }
    std::int64_t toWallNs(std::chrono::steady_clock::time_point t) const;

    static std::int64_t systemNowNs();

  private:
    std::chrono::steady_clock::time_point m_monoOrigin;
    std::int64_t m_wallOriginNs;
};

} // namespace tierscope
