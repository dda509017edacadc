#pragma once

#include "collectors/NvmeControllerInfo.h"
#include "collectors/SystemPaths.h"
#include "core/DeviceRecord.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// Everything discovery finds on this machine, in the form the device table stores, plus the
// block-device transport map the block collector labels its metrics with.
struct MachineInventory {
    std::vector<DeviceRecord> devices;
    std::map<std::string, std::string> transports;

    static MachineInventory discover(const SystemPaths& paths);
};

} // namespace tierscope
