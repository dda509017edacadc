#pragma once

#include <cstdint>
#include <optional>

namespace tierscope {

// Turns one GPU's hardware energy counter into the counts behind gpu/<n>/energy_j, a series
// that never goes down. The first reading is the counter's own value (NVML: since the driver
// loaded), so the series reads like the counter; after it only increases are added. Where the
// counter goes down it either restarted (a driver reload, a GPU reset: the new value is what
// it counted since, as Prometheus' increase() reads a reset) or, for a counter that may be 32
// bits wide, wrapped. AMD exposes the firmware's accumulator in a 64-bit field, but the SMU 11
// firmware (Navi 1x/2x) keeps it in 32 bits: it wraps after 2^32 counts, 65.7 kJ.
// A decrease is taken as a wrap only where the wrapped increase is physically possible in the
// time between the two readings; otherwise a reset.
class EnergyCounter {
  public:
    // No GPU board draws this much: a wrap that implies more is a reset.
    static constexpr double kMaxPlausibleW = 5000.0;

    explicit EnergyCounter(bool mayWrap32) : m_mayWrap32(mayWrap32) {}

    // raw: the counter as read at tNs; joulesPerCount: its resolution. Returns the series'
    // value in counts (a caller multiplies by the resolution, so exact decimal resolutions
    // such as NVML's millijoule stay exact).
    std::uint64_t add(std::int64_t tNs, std::uint64_t raw, double joulesPerCount);

  private:
    bool m_mayWrap32;
    std::optional<std::uint64_t> m_lastRaw;
    std::int64_t m_lastNs = 0;
    std::uint64_t m_counts = 0;
};

} // namespace tierscope
