#pragma once

#include "collectors/GpuBackends.h"
#include "collectors/NvmeControllerInfo.h"
#include "collectors/SystemPaths.h"
#include "core/DeviceRecord.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// Everything discovery finds on this machine, in the form the device table stores, plus what
// the collectors need: the block-device transport map and the opened GPU backends.
struct MachineInventory {
    std::vector<DeviceRecord> devices;
    std::map<std::string, std::string> transports;
    GpuBackends gpus;

    static MachineInventory
    discover(const SystemPaths& paths,
             const GpuBackends::Libraries& libraries = GpuBackends::Libraries::fromEnvironment());
};

} // namespace tierscope
