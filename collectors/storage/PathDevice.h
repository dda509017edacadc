#pragma once

#include "collectors/base/SystemPaths.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace tierscope {

// The block devices under a directory, as the kernel's accounting sees them: the disk that
// holds its filesystem (a partition's whole disk), the members a device-mapper or md device is
// stacked on, and the hidden paths of an NVMe multipath head. Bytes the engine reads from a
// KV tier in that directory cross these devices, and only these.
struct PathDevice {
    std::string path;
    std::string device;               // "dm-0", "nvme1n1", "vda"; empty when none
    std::vector<std::string> members; // slaves of a stacked device, whole disks
    std::vector<std::string> paths;   // NVMe multipath path disks of the device or a member
    std::string why;                  // why there is no device

    // stat(2) on the directory, then /sys/dev/block/<major>:<minor> and /sys/block.
    static PathDevice resolve(const std::string& path, const SystemPaths& paths = {});
    // The same from a device number, with sysfs under `paths.sys` (what tests drive).
    static PathDevice fromDeviceNumber(unsigned major, unsigned minor, const SystemPaths& paths);

    // {"path", "device" (null when none), "members", "paths", "why"}: what a run's summary
    // keeps as "kv_tier", read back by the bytes route (core/analysis/BytesRoute).
    nlohmann::json toJson() const;
};

} // namespace tierscope
