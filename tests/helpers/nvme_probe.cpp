// Test helper for tst_nvmediscovery: runs the real discovery (libnvme + sysfs) and prints what
// it found as JSON. The test runs it inside a private mount namespace over a fake /sys tree.
#include "collectors/MachineInventory.h"
#include "collectors/storage/NvmeDiscovery.h"
#include "core/util/Logging.h"

#include <iostream>
#include <nlohmann/json.hpp>

using namespace tierscope;

int main() {
    Logging::toStderr("warn");
    const auto controllers = NvmeDiscovery().discover();
    const auto inventory = MachineInventory::discover({});
    nlohmann::json out;
    out["transports"] = NvmeDiscovery::transportsByBlockDevice(controllers);
    out["devices"] = nlohmann::json::array();
    for (const auto& d : inventory.devices)
        out["devices"].push_back(
            {{"kind", d.kind}, {"name", d.name}, {"attrs", nlohmann::json::parse(d.attrs)}});
    std::cout << out.dump() << std::endl;
    return 0;
}
