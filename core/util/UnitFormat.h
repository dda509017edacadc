#pragma once

#include <cstdint>
#include <string>

namespace tierscope {

// Human-readable figures for terminal output. Decimal prefixes (MB/s, GB/s), as storage vendors
// and fio quote bandwidth.
class UnitFormat {
  public:
    static std::string bytesPerSecond(double value);
    static std::string bytes(double value);
    static std::string seconds(double value);
    // A KPI's figure in its unit, as every comparison view prints it: "480.12 ms", "1.234 s",
    // "2.50 GB/s", "1234 tok/s".
    static std::string kpi(double value, const std::string& unit);
    static std::string count(std::int64_t value); // 12,345
    static std::string utcTime(std::int64_t tNs); // 2026-11-30 05:31:02Z
    static std::string isoTime(std::int64_t tNs); // 2026-11-30T05:31:02.123456789Z
};

} // namespace tierscope
