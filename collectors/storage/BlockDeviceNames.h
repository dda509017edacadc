#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// Naming rules of Linux block devices that decide what is sampled and what is summed.
class BlockDeviceNames {
  public:
    // loop, ram and zram devices are never storage under test.
    static bool isIgnored(std::string_view name);
    // A hidden NVMe multipath path disk "nvme<S>c<C>n<N>" belongs to head "nvme<S>n<N>".
    static std::optional<std::string> multipathHead(std::string_view name);
    // The kind of a device stacked on other block devices, whose traffic is also counted on
    // its members: "dm" (device-mapper), "md" (software RAID), "bcache", "drbd", "zvol" (ZFS
    // zd*); nullopt for anything else.
    static std::optional<std::string> stackedKind(std::string_view name);
    // Whether the device's traffic always belongs in the machine-wide total: not a stacked
    // device, and not a hidden path disk (those count only when their head reports no I/O,
    // which the collector decides per interval).
    static bool countsInTotal(std::string_view name);
};

} // namespace tierscope
