#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// One line of /proc/diskstats (Documentation/admin-guide/iostats.rst). Sectors are always
// 512 bytes here, whatever the device's logical block size.
struct DiskStat {
    unsigned major = 0;
    unsigned minor = 0;
    std::string name;
    std::uint64_t reads = 0, readsMerged = 0, sectorsRead = 0, readMs = 0;
    std::uint64_t writes = 0, writesMerged = 0, sectorsWritten = 0, writeMs = 0;
    std::uint64_t inFlight = 0, ioMs = 0, weightedIoMs = 0;
};

class DiskstatsParser {
  public:
    // Accepts the 14-field (pre-4.18), 18-field (discard) and 20-field (flush) layouts.
    static std::vector<DiskStat> parse(std::string_view text);
};

} // namespace tierscope
