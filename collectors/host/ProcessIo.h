#pragma once

#include "collectors/host/ProcessIoSample.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// Per-process I/O accounting from /proc/<pid>/io: which processes made the block layer read and
// write, where /proc/diskstats only says how much a device moved. read_bytes and write_bytes
// count a process's own traffic plus that of the children it has waited for (their counters
// are added to the parent's when it reaps them); page-cache hits are in neither.
class ProcessIo {
  public:
    struct IoFields {
        std::optional<std::uint64_t> readBytes, writeBytes, rchar, wchar;
    };
    // The text of /proc/<pid>/io ("rchar: 323934931\n..."); nullopt when a known field holds no
    // number, appears twice, or none of them is there.
    static std::optional<IoFields> parseIo(std::string_view text);

    struct StatFields {
        std::string comm;
        int pgid = 0;
        int ppid = 0;
        std::uint64_t startTicks = 0; // field 22, starttime
    };
    // The text of /proc/<pid>/stat; nullopt when malformed.
    static std::optional<StatFields> parseStat(std::string_view text);

    // Every readable process under procRoot (default "/proc"); processes whose io is not
    // readable (EACCES for other users, or exited meanwhile) are left out, never reported as 0.
    static std::vector<ProcessIoSample> scan(const std::string& procRoot = "/proc");

    struct Scan {
        std::vector<ProcessIoSample> processes;
        // Left out because the kernel refused to show them (other users' processes without
        // root), as opposed to those that exited while the scan ran.
        int unreadable = 0;
    };
    // scan(), saying how many processes were refused.
    static Scan scanCounted(const std::string& procRoot = "/proc");

    // Sum of read_bytes / write_bytes over the processes of one process group; absent when no
    // process of the group could be read.
    struct GroupIo {
        std::uint64_t readBytes = 0, writeBytes = 0;
        int processes = 0;
    };
    static std::optional<GroupIo> group(int pgid, const std::string& procRoot = "/proc");
};

} // namespace tierscope
