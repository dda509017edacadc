#include "collectors/host/ProcessIoTop.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace tierscope {

namespace {

struct Bytes {
    std::uint64_t read = 0;
    std::uint64_t write = 0;
};

std::uint64_t minusClamped(std::uint64_t a, std::uint64_t b) {
    return a > b ? a - b : 0;
}

std::optional<double> shareOf(double part, double whole) {
    if (whole <= 0)
        return std::nullopt;
    return part / whole;
}

// When a parent waits for a child, the kernel adds the child's counters to the parent's: the
// parent's delta would show at once, again, everything the child did while it was already
// shown on its own. So what the vanished children showed in the earlier scan is taken off
// their parent's delta, which keeps only their last moments (between the earlier scan and
// their exit). A child whose parent did not wait for it (SIGCHLD ignored) is not added to the
// parent, and this takes off too much: the clamp at zero bounds that.
std::unordered_map<int, Bytes>
reapedByParent(const std::vector<ProcessIoSample>& earlier,
               const std::unordered_map<int, const ProcessIoSample*>& later) {
    std::unordered_map<int, Bytes> out;
    for (const auto& e : earlier) {
        const auto it = later.find(e.pid);
        if (it != later.end() && it->second->startTicks == e.startTicks)
            continue; // still there
        auto& b = out[e.ppid];
        b.read += e.readBytes;
        b.write += e.writeBytes;
    }
    return out;
}

std::vector<ProcessIoTop::Row> topBy(std::vector<ProcessIoTop::Row> rows, std::size_t n,
                                     double (*key)(const ProcessIoTop::Row&)) {
    std::erase_if(rows, [key](const auto& r) { return key(r) <= 0; });
    std::sort(rows.begin(), rows.end(), [key](const auto& a, const auto& b) {
        return key(a) != key(b) ? key(a) > key(b) : a.pid < b.pid;
    });
    if (rows.size() > n)
        rows.resize(n);
    return rows;
}

} // namespace

std::optional<ProcessIoTop::Result>
ProcessIoTop::compute(const std::vector<ProcessIoSample>& earlier,
                      const std::vector<ProcessIoSample>& later, double elapsedS, std::size_t n) {
    if (!(elapsedS > 0) || !std::isfinite(elapsedS))
        return std::nullopt;
    std::unordered_map<int, const ProcessIoSample*> before;
    std::unordered_map<int, const ProcessIoSample*> after;
    for (const auto& e : earlier)
        before[e.pid] = &e;
    for (const auto& l : later)
        after[l.pid] = &l;
    const auto reaped = reapedByParent(earlier, after);

    Result out;
    std::vector<Row> rows;
    std::uint64_t totalRead = 0;
    std::uint64_t totalWrite = 0;
    for (const auto& l : later) {
        const auto it = before.find(l.pid);
        if (it == before.end() || it->second->startTicks != l.startTicks)
            continue; // new, or a reused pid: no interval of its own yet
        const ProcessIoSample& e = *it->second;
        // Counters of one process only grow; smaller is not this process after all.
        if (l.readBytes < e.readBytes || l.writeBytes < e.writeBytes)
            continue;
        Bytes d{l.readBytes - e.readBytes, l.writeBytes - e.writeBytes};
        if (const auto r = reaped.find(l.pid); r != reaped.end()) {
            d.read = minusClamped(d.read, r->second.read);
            d.write = minusClamped(d.write, r->second.write);
        }
        ++out.matched;
        totalRead += d.read;
        totalWrite += d.write;
        Row row;
        row.pid = l.pid;
        row.pgid = l.pgid;
        row.name = l.name;
        row.readBytesPerS = static_cast<double>(d.read) / elapsedS;
        row.writeBytesPerS = static_cast<double>(d.write) / elapsedS;
        rows.push_back(std::move(row));
    }
    out.readBytesPerS = static_cast<double>(totalRead) / elapsedS;
    out.writeBytesPerS = static_cast<double>(totalWrite) / elapsedS;
    for (auto& r : rows) {
        r.readShare = shareOf(r.readBytesPerS, out.readBytesPerS);
        r.writeShare = shareOf(r.writeBytesPerS, out.writeBytesPerS);
        r.share =
            shareOf(r.readBytesPerS + r.writeBytesPerS, out.readBytesPerS + out.writeBytesPerS);
    }
    out.byRead = topBy(rows, n, [](const Row& r) { return r.readBytesPerS; });
    out.byWrite = topBy(rows, n, [](const Row& r) { return r.writeBytesPerS; });
    out.byTotal =
        topBy(std::move(rows), n, [](const Row& r) { return r.readBytesPerS + r.writeBytesPerS; });
    return out;
}

} // namespace tierscope
