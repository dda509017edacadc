#pragma once

#include "collectors/gpu/GpuBackends.h"
#include "collectors/storage/NvmeControllerInfo.h"
#include "collectors/base/SystemPaths.h"
#include "core/model/DeviceRecord.h"

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
