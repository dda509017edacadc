#pragma once

#include "collectors/host/ProcessIoSample.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Which processes moved the most bytes between two scans of /proc/<pid>/io (ProcessIo::scan),
// as rates, and what part of all processes' traffic each one was.
class ProcessIoTop {
  public:
    struct Row {
        int pid = 0;
        int pgid = 0;
        std::string name;
        double readBytesPerS = 0;
        double writeBytesPerS = 0;
        // This process's part of the sum of every process's delta, 0..1, for reads, writes and
        // both together; absent when no process moved a byte that way (no 0 of nothing).
        std::optional<double> readShare, writeShare, share;
    };
    struct Result {
        // At most n rows each, highest first; a process that moved nothing is in none.
        std::vector<Row> byRead, byWrite, byTotal;
        // Every process seen in both scans, together.
        double readBytesPerS = 0, writeBytesPerS = 0;
        int matched = 0; // processes seen in both scans, the same process both times
    };

    // A process counts only when the later scan shows the same process as the earlier one: the
    // same pid and the same start time (a reused pid is another process, whose counters began
    // at zero). A process new in the later scan has no rate until the next interval, as top
    // and htop show it. nullopt when elapsedS is not a positive number of seconds.
    static std::optional<Result> compute(const std::vector<ProcessIoSample>& earlier,
                                         const std::vector<ProcessIoSample>& later, double elapsedS,
                                         std::size_t n);
};

} // namespace tierscope
