#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// The block devices under a run's KV tier directory, as its summary keeps them ("kv_tier",
// written by collectors/storage/PathDevice at the run): the one place that reads it back for
// the bytes route, the storage-bound rule and the iopolicy check.
struct KvTier {
    std::string device;               // empty when the directory is on none
    std::string why;                  // why there is none
    std::vector<std::string> members; // of a stacked device (dm, md)
    std::vector<std::string> paths;   // NVMe multipath path disks

    // Absent when the summary names no tier directory (or does not read).
    static std::optional<KvTier> ofSummary(const std::string& summaryJson);
    // The device, its members and its paths.
    std::set<std::string> all() const;
};

} // namespace tierscope
