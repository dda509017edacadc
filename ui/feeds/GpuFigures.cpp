#include "ui/feeds/GpuFigures.h"

#include "core/store/LiveBuffer.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace tierscope {

std::vector<GpuFigures> GpuFigures::fromLatest(const std::map<std::string, double>& latest) {
    std::map<int, GpuFigures> byIndex;
    for (const auto& [path, value] : latest) {
        // gpu/<n>/<what>
        if (path.rfind("gpu/", 0) != 0)
            continue;
        const auto slash = path.find('/', 4);
        if (slash == std::string::npos || slash == 4)
            continue;
        char* end = nullptr;
        const long n = std::strtol(path.c_str() + 4, &end, 10);
        if (end != path.c_str() + slash || n < 0)
            continue;
        GpuFigures& g = byIndex[static_cast<int>(n)];
        g.index = static_cast<int>(n);
        const std::string what = path.substr(slash + 1);
        if (what == "busy_pct")
            g.busyPct = value;
        else if (what == "vram_used_bytes")
            g.vramUsedBytes = value;
        else if (what == "vram_total_bytes")
            g.vramTotalBytes = value;
        else if (what == "power_w")
            g.powerW = value;
        else if (what == "pcie_rx_bytes_per_s")
            g.pcieRxBytesPerS = value;
        else if (what == "pcie_tx_bytes_per_s")
            g.pcieTxBytesPerS = value;
        else if (what == "pcie_bytes_per_s")
            g.pcieBothBytesPerS = value;
    }
    // The temperature nvtop shows: the vendor's GPU sensor, else AMD's edge, else junction.
    for (auto& [n, g] : byIndex) {
        const std::string prefix = "gpu/" + std::to_string(n) + "/";
        for (const auto& [what, sensor] :
             {std::pair{"temp_c", ""}, {"temp_edge_c", "edge"}, {"temp_junction_c", "junction"}}) {
            if (const auto it = latest.find(prefix + what); it != latest.end()) {
                g.tempC = it->second;
                g.tempSensor = sensor;
                break;
            }
        }
    }
    std::vector<GpuFigures> out;
    for (auto& [n, g] : byIndex)
        out.push_back(std::move(g));
    return out;
}

std::map<std::string, double> GpuFigures::latest(const LiveBuffer& buffer, std::int64_t staleNs) {
    static const std::set<std::string> kShown = {"busy_pct",
                                                 "vram_used_bytes",
                                                 "vram_total_bytes",
                                                 "power_w",
                                                 "temp_c",
                                                 "temp_edge_c",
                                                 "temp_junction_c",
                                                 "pcie_rx_bytes_per_s",
                                                 "pcie_tx_bytes_per_s",
                                                 "pcie_bytes_per_s"};
    std::map<std::string, double> out;
    const std::int64_t t1 = buffer.newestNs();
    for (const auto& m : buffer.metrics()) {
        const std::string& path = m.descriptor.path;
        const auto slash = path.rfind('/');
        if (path.rfind("gpu/", 0) != 0 || slash == std::string::npos ||
            !kShown.count(path.substr(slash + 1)))
            continue;
        // Coarse buckets find the newest one with data; fine ones within it, far narrower than
        // the sampling interval, hold one sample each: the last is the newest sample itself.
        const auto coarse = buffer.decimated(m.id, t1 - staleNs, t1, 64);
        if (coarse.empty())
            continue;
        const auto& last = coarse.back();
        const auto fine =
            buffer.decimated(m.id, last.tNs - 1, std::min(t1, last.tNs + last.widthNs), 1024);
        out[path] = fine.empty() ? last.mean() : fine.back().mean();
    }
    return out;
}

} // namespace tierscope
