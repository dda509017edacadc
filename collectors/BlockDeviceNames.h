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
    // Whether the device's traffic belongs in the machine-wide total: hidden path disks
    // duplicate their head, device-mapper and md duplicate their members.
    static bool countsInTotal(std::string_view name);
};

} // namespace tierscope
