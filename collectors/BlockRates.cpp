#include "collectors/BlockRates.h"

#include <algorithm>

namespace tierscope {

std::optional<BlockRates> BlockRates::compute(const DiskStat& before, const DiskStat& after,
                                              std::int64_t dtNs) {
    if (dtNs <= 0)
        return std::nullopt;
    const std::uint64_t DiskStat::*counters[] = {
        &DiskStat::reads,  &DiskStat::sectorsRead,    &DiskStat::readMs,
        &DiskStat::writes, &DiskStat::sectorsWritten, &DiskStat::writeMs,
        &DiskStat::ioMs,   &DiskStat::weightedIoMs};
    for (auto field : counters)
        if (after.*field < before.*field)
            return std::nullopt;

    auto delta = [&](std::uint64_t DiskStat::*field) {
        return static_cast<double>(after.*field - before.*field);
    };
    const double seconds = static_cast<double>(dtNs) / 1e9;
    const double elapsedMs = seconds * 1000.0;
    BlockRates r;
    r.readBytesPerS = delta(&DiskStat::sectorsRead) * 512.0 / seconds;
    r.writeBytesPerS = delta(&DiskStat::sectorsWritten) * 512.0 / seconds;
    r.readIops = delta(&DiskStat::reads) / seconds;
    r.writeIops = delta(&DiskStat::writes) / seconds;
    if (const double n = delta(&DiskStat::reads); n > 0)
        r.readAwaitS = delta(&DiskStat::readMs) / n / 1000.0;
    if (const double n = delta(&DiskStat::writes); n > 0)
        r.writeAwaitS = delta(&DiskStat::writeMs) / n / 1000.0;
    // io_ticks can exceed wall time by a tick on multi-queue devices; iostat caps it too.
    r.utilPct = std::min(100.0, delta(&DiskStat::ioMs) / elapsedMs * 100.0);
    r.queueDepth = delta(&DiskStat::weightedIoMs) / elapsedMs;
    return r;
}

} // namespace tierscope
