// Test helper for tst_nvmediscovery and tst_nvmemultipath: runs the real discovery (libnvme +
// sysfs) and prints what it found as JSON. The tests run it inside a private mount namespace
// over a fake /sys tree.
//
// With `--rates SOURCE NEXT`, SOURCE being the file bind-mounted over /proc/diskstats, it also
// samples the real block collector twice, one second of sample time apart: before the second
// sample it copies NEXT's text into SOURCE (the same inode, so /proc/diskstats shows it), and
// prints the readings under "readings" (metric path -> {value, labels}).
#include "collectors/MachineInventory.h"
#include "collectors/storage/BlockStatCollector.h"
#include "collectors/storage/NvmeDiscovery.h"
#include "core/util/Logging.h"

#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

bool copyText(const char* from, const char* to) {
    std::ifstream in(from);
    if (!in)
        return false;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(to, std::ios::trunc); // truncates in place: the bind mount keeps the inode
    out << text;
    return static_cast<bool>(out.flush());
}

} // namespace

int main(int argc, char** argv) {
    Logging::toStderr("warn");
    const auto controllers = NvmeDiscovery().discover();
    const auto inventory = MachineInventory::discover({});
    nlohmann::json out;
    out["transports"] = NvmeDiscovery::transportsByBlockDevice(controllers);
    out["devices"] = nlohmann::json::array();
    for (const auto& d : inventory.devices)
        out["devices"].push_back(
            {{"kind", d.kind}, {"name", d.name}, {"attrs", nlohmann::json::parse(d.attrs)}});
    if (argc == 4 && std::strcmp(argv[1], "--rates") == 0) {
        BlockStatCollector block({}, inventory.transports);
        const std::int64_t t0 = 1'700'000'000'000'000'000;
        if (!block.sample(t0).empty()) {
            std::cerr << "the first sample has no baseline and must report nothing\n";
            return 1;
        }
        if (!copyText(argv[3], argv[2])) {
            std::cerr << "cannot copy " << argv[3] << " to " << argv[2] << "\n";
            return 1;
        }
        out["readings"] = nlohmann::json::object();
        for (const auto& r : block.sample(t0 + 1'000'000'000))
            out["readings"][r.metric.path] = {{"value", r.value},
                                              {"labels", nlohmann::json::parse(r.metric.labels)}};
    }
    std::cout << out.dump() << std::endl;
    return 0;
}
