#pragma once

#include <optional>
#include <string>

namespace tierscope {

// What names an NVMe namespace across reconnects: the kernel renames nvme1n1 to nvme4n1 when
// an NVMe-oF controller reconnects, but the subsystem NQN and the namespace id stay. A probe's
// ceiling applies to the namespace with the same NQN and id, whatever its kernel name.
struct NvmeIdentity {
    std::string subsysNqn;
    std::string nsid;
    // The controllers' transports: pcie, tcp, rdma, fc, loop; "rdma+tcp" for a multipath head
    // reached both ways. Shown, not part of the identity (a path may change transport).
    std::string transport;

    std::string key() const { return subsysNqn + " nsid " + nsid; }

    // From sysfs (sysRoot is normally "/sys"): /sys/block/<name>/nsid, and the subsystem NQN
    // and transport of the controller (a namespace) or of the subsystem's controllers (a
    // native-multipath head). Absent for a device that is not an NVMe namespace.
    static std::optional<NvmeIdentity> of(const std::string& blockName, const std::string& sysRoot);
};

} // namespace tierscope
