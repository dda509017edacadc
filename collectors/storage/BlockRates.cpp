#include "collectors/storage/BlockRates.h"

#include <algorithm>
#include <limits>

namespace tierscope {

namespace {

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

// Delta of a field the kernel prints as a 32-bit unsigned int ("%u"): a smaller value after a
// larger one that fits in 32 bits is a wrap, taken modulo 2^32 as iostat's unsigned int
// arithmetic does. nullopt when either value does not fit, so it cannot be a 32-bit counter.
std::optional<std::uint64_t> delta32(std::uint64_t before, std::uint64_t after) {
    if (after >= before)
        return after - before;
    if (before > kU32Max || after > kU32Max)
        return std::nullopt;
    return (after - before) & kU32Max;
}

} // namespace

std::optional<BlockRates> BlockRates::compute(const DiskStat& before, const DiskStat& after,
                                              std::int64_t dtNs) {
    if (dtNs <= 0)
        return std::nullopt;
    // Completions and sectors are "%lu": only a reset (device re-created) makes them go back.
    const std::uint64_t DiskStat::*counters[] = {&DiskStat::reads, &DiskStat::sectorsRead,
                                                 &DiskStat::writes, &DiskStat::sectorsWritten};
    for (auto field : counters)
        if (after.*field < before.*field)
            return std::nullopt;
    const auto readMs = delta32(before.readMs, after.readMs);
    const auto writeMs = delta32(before.writeMs, after.writeMs);
    const auto ioMs = delta32(before.ioMs, after.ioMs);
    const auto weightedIoMs = delta32(before.weightedIoMs, after.weightedIoMs);
    if (!readMs || !writeMs || !ioMs || !weightedIoMs)
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
        r.readAwaitS = static_cast<double>(*readMs) / n / 1000.0;
    if (const double n = delta(&DiskStat::writes); n > 0)
        r.writeAwaitS = static_cast<double>(*writeMs) / n / 1000.0;
    // io_ticks can exceed wall time by a tick on multi-queue devices; iostat caps it too.
    r.utilPct = std::min(100.0, static_cast<double>(*ioMs) / elapsedMs * 100.0);
    r.queueDepth = static_cast<double>(*weightedIoMs) / elapsedMs;
    return r;
}

} // namespace tierscope
