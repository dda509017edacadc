#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// What the kernel says of one NVMe native-multipath path disk (nvme<S>c<C>n<N>) or of a head
// (nvme<S>n<N>): the path's ANA state and controller, and the subsystem's I/O policy. The
// attributes, as drivers/nvme/host/multipath.c and sysfs.c define them:
// - /sys/block/<path>/ana_state: "optimized", "non-optimized", "inaccessible",
//   "persistent-loss" or "change" ("invalid state" before the ANA log was read). Only path
//   disks of controllers that use ANA have it; a controller without ANA has no file.
// - /sys/block/<path>/device is the path's controller (transport, address, state);
//   /sys/block/<head>/device is the subsystem, whose iopolicy is "numa", "round-robin" or
//   "queue-depth" (since 6.11); the same file as /sys/class/nvme-subsystem/<subsys>/iopolicy.
class NvmePathAttrs {
  public:
    // The controller's "address" attribute: "traddr=...,trsvcid=...[,host_traddr=...]
    // [,host_iface=...][,src_addr=...]" for fabrics (nvmf_get_address), a PCI address for PCIe.
    struct Address {
        std::optional<std::string> traddr;
        std::optional<std::string> trsvcid;
        std::optional<std::string> hostTraddr;
        std::optional<std::string> srcAddr;
    };

    std::optional<std::string> anaState;        // a path: one of the five ANA states
    std::optional<std::string> iopolicy;        // the subsystem's, for a path and for a head
    std::optional<std::string> controller;      // a path: nvme<C>
    std::optional<std::string> transport;       // a path: its controller's
    std::optional<std::string> controllerState; // live, connecting, resetting, deleting, ...
    Address address;

    // The ANA state in an ana_state file; nullopt for "invalid state" and anything else.
    static std::optional<std::string> parseAnaState(std::string_view text);
    // The policy in an iopolicy file; nullopt for a name this kernel interface does not define.
    static std::optional<std::string> parseIopolicy(std::string_view text);
    static Address parseAddress(std::string_view text);

    // From sysfs (sysRoot is normally "/sys"). nullopt for a device that is neither a path
    // disk nor a head with a subsystem I/O policy.
    static std::optional<NvmePathAttrs> of(const std::string& blockName,
                                           const std::string& sysRoot);
};

} // namespace tierscope
