#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// One "cpu" or "cpuN" line of /proc/stat, in USER_HZ ticks.
struct CpuTimes {
    std::string name; // "cpu" for the total, "cpu0", "cpu1", ...
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                  steal = 0;

    // guest and guest_nice are already inside user and nice, so they are not added again.
    std::uint64_t total() const {
        return user + nice + system + idle + iowait + irq + softirq + steal;
    }
    std::uint64_t idleAll() const { return idle + iowait; }
};

class ProcStatParser {
  public:
    static std::vector<CpuTimes> parse(std::string_view text);
    // Busy share between two snapshots of the same CPU, in percent: neither idle, iowait nor
    // steal (time the hypervisor ran someone else), as top and node_exporter users read it.
    // nullopt when no time passed or the counters went backwards (CPU hot-unplug, reset).
    static std::optional<double> busyPercent(const CpuTimes& before, const CpuTimes& after);
    // Steal share of the same interval, in percent (top's "st", mpstat's %steal).
    static std::optional<double> stealPercent(const CpuTimes& before, const CpuTimes& after);
};

} // namespace tierscope
