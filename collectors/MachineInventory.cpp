#include "collectors/MachineInventory.h"

#include "collectors/storage/BlockStatCollector.h"
#include "collectors/storage/NvmeDiscovery.h"

#include <nlohmann/json.hpp>

namespace tierscope {

MachineInventory MachineInventory::discover(const SystemPaths& paths,
                                            const GpuBackends::Libraries& libraries) {
    MachineInventory inventory;
    inventory.gpus = GpuBackends::open(paths, libraries);
    inventory.devices = inventory.gpus.devices();
    const auto controllers = NvmeDiscovery(paths).discover();
    inventory.transports = NvmeDiscovery::transportsByBlockDevice(controllers);
    for (auto& d : NvmeDiscovery::toDeviceRecords(controllers))
        inventory.devices.push_back(std::move(d));
    for (auto& d : BlockStatCollector(paths, inventory.transports).devices())
        inventory.devices.push_back(std::move(d));
    inventory.devices.push_back({"backend", "nvme",
                                 nlohmann::json{{"state", "available"},
                                                {"source", "libnvme 1.3 + sysfs"},
                                                {"detail", std::to_string(controllers.size()) +
                                                               " NVMe controller(s) found"}}
                                     .dump()});
    return inventory;
}

} // namespace tierscope
