#include "collectors/gpu/GpuBackends.h"

#include "collectors/gpu/AmdGpuCollector.h"
#include "collectors/gpu/AmdPcieCollector.h"
#include "collectors/gpu/AscendNpuCollector.h"
#include "collectors/gpu/NvidiaGpuCollector.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace tierscope {

GpuBackends::Libraries GpuBackends::Libraries::fromEnvironment() {
    Libraries libraries;
    if (const char* nvml = std::getenv("TIERSCOPE_NVML_LIBRARY"); nvml && *nvml)
        libraries.nvml = nvml;
    if (const char* dcmi = std::getenv("TIERSCOPE_DCMI_LIBRARY"); dcmi && *dcmi)
        libraries.dcmi = {dcmi};
    return libraries;
}

GpuBackends GpuBackends::open(const SystemPaths& paths, const Libraries& libraries) {
    GpuBackends out;
    int next = 0;
    GpuBackendStatus status;
    if (auto smi = AmdRocmSmi::open(paths, status)) {
        out.collectors.push_back(std::make_unique<AmdGpuCollector>(smi, next));
        out.slowCollectors.push_back(std::make_unique<AmdPcieCollector>(smi, next));
        next += static_cast<int>(smi->devices().size());
    }
    out.statuses.push_back(status);
    if (auto nvml = NvidiaNvml::open(libraries.nvml, status)) {
        out.collectors.push_back(std::make_unique<NvidiaGpuCollector>(nvml, next));
        next += static_cast<int>(nvml->devices().size());
    }
    out.statuses.push_back(status);
    if (auto dcmi = AscendDcmi::open(libraries.dcmi, status))
        out.collectors.push_back(std::make_unique<AscendNpuCollector>(dcmi, next));
    out.statuses.push_back(status);
    for (const auto& s : out.statuses)
        spdlog::info("{}", s.summary());
    return out;
}

std::vector<DeviceRecord> GpuBackends::devices() const {
    std::vector<DeviceRecord> out;
    for (const auto& c : collectors)
        for (auto& d : c->devices())
            out.push_back(std::move(d));
    for (const auto& s : statuses)
        out.push_back(s.toDeviceRecord());
    return out;
}

} // namespace tierscope
