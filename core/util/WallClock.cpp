#include "core/util/WallClock.h"

namespace tierscope {

WallClock::WallClock()
    : m_monoOrigin(std::chrono::steady_clock::now()), m_wallOriginNs(systemNowNs()) {}

std::int64_t WallClock::toWallNs(std::chrono::steady_clock::time_point t) const {
    return m_wallOriginNs +
           std::chrono::duration_cast<std::chrono::nanoseconds>(t - m_monoOrigin).count();
}

std::int64_t WallClock::systemNowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace tierscope
