#pragma once

#include <cstdint>
#include <string>

namespace tierscope {

// One process's cumulative I/O counters as /proc/<pid>/io showed them at one moment, with what
// /proc/<pid>/stat says about who the process is.
struct ProcessIoSample {
    int pid = 0;
    int pgid = 0;
    // The reaped children's counters move into their parent's when it waits for them, so a
    // delta needs to know whose child a vanished process was.
    int ppid = 0;
    std::string name; // comm from /proc/<pid>/stat (may contain spaces and ')')
    // Field 22 of stat, clock ticks after boot: a pid is reused, a (pid, start) pair is not.
    std::uint64_t startTicks = 0;
    std::uint64_t readBytes = 0;  // read_bytes: what this process made the block layer read
    std::uint64_t writeBytes = 0; // write_bytes: what it dirtied and the kernel sent to storage
};

} // namespace tierscope
