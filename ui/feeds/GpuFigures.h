#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class LiveBuffer;

// One GPU's figures of the moment, as the GPU panel shows them: the latest samples of the
// series the GPU collectors record (gpu/<n>/busy_pct, vram_used_bytes, ...), so the panel
// shows the same numbers as the live charts and polls nothing itself. Absent: no recent sample.
struct GpuFigures {
    int index = 0; // n of gpu/<n>/
    std::optional<double> busyPct;
    std::optional<double> vramUsedBytes, vramTotalBytes;
    std::optional<double> powerW;
    std::optional<double> tempC;
    std::string tempSensor; // "" (the vendor's GPU temperature), "edge" or "junction" (AMD)
    std::optional<double> pcieRxBytesPerS, pcieTxBytesPerS; // NVIDIA
    // AMD: both directions together, an upper bound (AmdRocmSmi::PcieThroughput).
    std::optional<double> pcieBothBytesPerS;

    // Latest values by metric path to one entry per GPU, by index; paths that are not a GPU's
    // are ignored.
    static std::vector<GpuFigures> fromLatest(const std::map<std::string, double>& latest);
    // The newest sample of each gpu/ series of `buffer`, unless older than `staleNs` before
    // the buffer's newest sample.
    static std::map<std::string, double> latest(const LiveBuffer& buffer, std::int64_t staleNs);
};

} // namespace tierscope
