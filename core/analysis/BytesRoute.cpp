#include "core/analysis/BytesRoute.h"

#include "core/util/UnitFormat.h"

#include <cstdio>

namespace tierscope {

namespace {

std::string percentOf(double part, double whole) {
    if (whole <= 0)
        return "";
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%", part / whole * 100);
    return text;
}

std::string amount(const std::optional<double>& bytes) {
    return bytes ? UnitFormat::bytes(*bytes) : "absent";
}

} // namespace

bool BytesRoute::empty() const {
    return !engineTierBytes && !engineGpuLoadBytes && !deviceBytes && !nicBytes && !rdmaBytes &&
           !gpuRxBytes;
}

std::vector<BytesRoute::Confound> BytesRoute::confounds() const {
    std::vector<Confound> out;
    if (engineTierBytes && *engineTierBytes >= kJudgedBytes && deviceBytes) {
        const double engine = *engineTierBytes, device = *deviceBytes;
        const double network = nicBytes.value_or(0) + rdmaBytes.value_or(0);
        const std::string numbers =
            "the engine read " + UnitFormat::bytes(engine) + " from its tier, " + this->device +
            " read " + UnitFormat::bytes(device) + " (" + percentOf(device, engine) + ")";
        if (device < 0.01 * engine && network >= 0.5 * engine)
            out.push_back({"kernel-blind",
                           numbers + " while the network received " + UnitFormat::bytes(network) +
                               ": the tier is read past the block layer (a user-space NVMe-oF "
                               "initiator such as SPDK, or io_uring passthrough), so the device "
                               "figures of this run do not describe the tier"});
        else if (device < 0.25 * engine)
            out.push_back(
                {"page-cache", numbers + ": the rest came from the page cache or DRAM (or an I/O "
                                         "path the block layer cannot see), so this run did not "
                                         "measure the device"});
    }
    if (engineGpuLoadBytes && *engineGpuLoadBytes >= kJudgedBytes && gpuRxBytes &&
        *gpuRxBytes < 0.5 * *engineGpuLoadBytes)
        out.push_back({"gpu-staging",
                       "the engine loaded " + UnitFormat::bytes(*engineGpuLoadBytes) +
                           " into GPU memory, the GPUs received " + UnitFormat::bytes(*gpuRxBytes) +
                           " over PCIe (" + percentOf(*gpuRxBytes, *engineGpuLoadBytes) +
                           "): the load is staged, or bound before the GPU"});
    return out;
}

std::string BytesRoute::text() const {
    std::string out = "engine tier " + amount(engineTierBytes);
    if (engineTierBytes && !engineTierSource.empty())
        out += " (" + engineTierSource + ")";
    if (device.empty()) {
        out += " | device unknown" + (deviceWhy.empty() ? "" : ": " + deviceWhy);
    } else {
        out += " | device " + device + " " + amount(deviceBytes);
        std::string detail;
        if (deviceBytes && engineTierBytes && *engineTierBytes > 0)
            detail = percentOf(*deviceBytes, *engineTierBytes) + " of the engine's";
        for (const auto& [name, bytes] : belowBytes)
            detail += (detail.empty() ? "" : "; ") + name + " " + UnitFormat::bytes(bytes);
        if (!detail.empty())
            out += " (" + detail + ")";
    }
    out += " | NIC rx " + amount(nicBytes) + " | RDMA rx " + amount(rdmaBytes);
    out +=
        " | engine GPU load " + amount(engineGpuLoadBytes) + " | GPU PCIe rx " + amount(gpuRxBytes);
    if (gpuRxBytes && engineGpuLoadBytes && *engineGpuLoadBytes > 0)
        out += " (" + percentOf(*gpuRxBytes, *engineGpuLoadBytes) + ")";
    return out;
}

} // namespace tierscope
