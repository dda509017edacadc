#include "collectors/gpu/EnergyCounter.h"

namespace tierscope {

std::uint64_t EnergyCounter::add(std::int64_t tNs, std::uint64_t raw, double joulesPerCount) {
    if (!m_lastRaw) {
        m_counts = raw;
    } else if (raw >= *m_lastRaw) {
        m_counts += raw - *m_lastRaw;
    } else {
        constexpr std::uint64_t kWrap32 = std::uint64_t(1) << 32;
        const double seconds = static_cast<double>(tNs - m_lastNs) / 1e9;
        const bool wrapped32 = m_mayWrap32 && *m_lastRaw < kWrap32 && seconds > 0 &&
                               static_cast<double>(kWrap32 - *m_lastRaw + raw) * joulesPerCount <=
                                   kMaxPlausibleW * seconds;
        m_counts += wrapped32 ? kWrap32 - *m_lastRaw + raw : raw;
    }
    m_lastRaw = raw;
    m_lastNs = tNs;
    return m_counts;
}

} // namespace tierscope
