#pragma once

#include "collectors/storage/DiskstatsParser.h"

#include <cstdint>
#include <optional>

namespace tierscope {

// iostat's per-device figures between two /proc/diskstats snapshots, in SI units.
struct BlockRates {
    double readBytesPerS = 0, writeBytesPerS = 0;
    double readIops = 0, writeIops = 0;
    std::optional<double> readAwaitS;  // absent when no read completed in the interval
    std::optional<double> writeAwaitS; // absent when no write completed in the interval
    double utilPct = 0;
    double queueDepth = 0; // iostat's aqu-sz

    // Whether any I/O completed or any sector moved in the interval.
    bool moved() const {
        return readIops > 0 || writeIops > 0 || readBytesPerS > 0 || writeBytesPerS > 0;
    }

    // nullopt when dtNs <= 0 or a completion or sector counter went backwards (device
    // re-created, counter reset): that interval is unknown, not zero. The millisecond fields
    // (read/write time, io_ticks, time in queue) are 32-bit in /proc/diskstats and wrap; their
    // deltas are taken modulo 2^32.
    static std::optional<BlockRates> compute(const DiskStat& before, const DiskStat& after,
                                             std::int64_t dtNs);
};

} // namespace tierscope
