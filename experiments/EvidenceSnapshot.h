#pragma once

#include "collectors/base/SystemPaths.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// What a validity check needs from before and after a measured phase: the bytes read from the
// block device that holds the arm's path (/proc/diskstats), the page cache (Cached in
// /proc/meminfo), and the engine's prefix-cache and LMCache counters (its /metrics). Absent
// when a source has no answer, never zero.
struct EvidenceSnapshot {
    std::optional<std::string> device; // "nvme0n1": the block device under the path
    std::string deviceWhy;             // why there is none
    std::optional<std::uint64_t> deviceReadBytes;
    // An NVMe multipath head's hidden paths (nvme0c0n1, ...), summed: a kernel without I/O
    // accounting on the head shows the head as all zeros and counts only its paths.
    std::optional<std::uint64_t> pathsReadBytes;
    std::optional<std::uint64_t> pageCacheBytes;
    std::map<std::string, double> engineCounters; // catalog role -> sum over label sets
    // The engine's own I/O: read_bytes and write_bytes summed over the processes of its process
    // group (/proc/<pid>/io), which tierscope started; absent without one or when unreadable.
    int enginePgid = 0;
    std::optional<std::uint64_t> engineReadBytes, engineWriteBytes;
    int engineProcesses = 0;

    // `enginePgid`: the process group of the engine tierscope started (0: none).
    static EvidenceSnapshot take(const std::string& path, const std::string& engineUrl,
                                 const SystemPaths& paths = {}, int enginePgid = 0);
    // Bytes the engine's processes read from `before` to `after`; absent when either is
    // unknown, the group changed or a process of it exited (its count left the sum).
    static std::optional<double> engineReadDelta(const EvidenceSnapshot& before,
                                                 const EvidenceSnapshot& after);
    // The engine's own I/O over a measured phase as a run's figures: engine_read_bytes,
    // engine_write_bytes and engine_read_gb_per_s over the summary's benchmark duration. None,
    // never 0, where the engine's process group is unknown.
    static void addEngineIo(const EvidenceSnapshot& before, const EvidenceSnapshot& after,
                            nlohmann::json& summary);
    // Bytes the device read from `before` to `after`: the head's counters when they moved, else
    // its paths' (never both, as BlockTotal counts it).
    static std::optional<double> readDelta(const EvidenceSnapshot& before,
                                           const EvidenceSnapshot& after);
    // The counters the checks read, summed over their label sets (every engine, model, ...).
    static std::map<std::string, double> counters(std::string_view metricsText);
    // The counters that grew from `before` to `after` (a counter that went backwards was
    // reset: the engine restarted, and its delta is unknown, so it is left out).
    static std::map<std::string, double> delta(const std::map<std::string, double>& before,
                                               const std::map<std::string, double>& after);
};

} // namespace tierscope
