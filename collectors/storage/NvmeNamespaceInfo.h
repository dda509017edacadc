#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

// A block device that belongs to an NVMe controller: a plain namespace (nvme0n1) or, with
// native multipath, a hidden path disk (nvme1c2n1) whose head is the visible device (nvme1n1).
struct NvmeNamespaceInfo {
    std::string blockName;
    std::optional<std::string> head;
    std::optional<std::uint64_t> sizeBytes; // from /sys/block/<name>/size, readable without root
};

} // namespace tierscope
