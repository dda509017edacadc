#include "collectors/gpu/NvidiaGpuCollector.h"

#include "collectors/gpu/GpuLabels.h"

#include <nlohmann/json.hpp>

namespace tierscope {

NvidiaGpuCollector::NvidiaGpuCollector(std::shared_ptr<NvidiaNvml> nvml, int firstIndex)
    : m_nvml(std::move(nvml)), m_firstIndex(firstIndex) {}

std::vector<Reading> NvidiaGpuCollector::sample(std::int64_t) {
    std::vector<Reading> out;
    for (const auto& d : m_nvml->devices()) {
        const std::string prefix =
            "gpu/" + std::to_string(m_firstIndex + static_cast<int>(d.index)) + "/";
        const std::string labels = GpuLabels::json("nvidia", d.name, d.busId);
        auto emit = [&](const char* what, const char* unit, const std::optional<double>& v) {
            if (v)
                out.push_back({{prefix + what, unit, "gauge", labels}, *v});
        };
        if (const auto u = m_nvml->utilization(d)) {
            emit("busy_pct", "percent", u->gpu);
            emit("mem_busy_pct", "percent", u->memory);
        }
        if (const auto m = m_nvml->memory(d)) {
            emit("vram_used_bytes", "bytes", m->usedBytes);
            emit("vram_total_bytes", "bytes", m->totalBytes);
        }
        emit("pcie_tx_bytes_per_s", "bytes/s", m_nvml->pcieBytesPerS(d, nvml::kPcieTxBytes));
        emit("pcie_rx_bytes_per_s", "bytes/s", m_nvml->pcieBytesPerS(d, nvml::kPcieRxBytes));
        emit("power_w", "W", m_nvml->powerW(d));
        emit("temp_c", "degC", m_nvml->temperatureC(d));
    }
    return out;
}

std::vector<DeviceRecord> NvidiaGpuCollector::devices() {
    std::vector<DeviceRecord> out;
    for (const auto& d : m_nvml->devices()) {
        nlohmann::json attrs = {
            {"vendor", "nvidia"}, {"model", d.name}, {"bus", d.busId}, {"nvml_index", d.index}};
        if (const auto m = m_nvml->memory(d))
            attrs["vram_total_bytes"] = m->totalBytes;
        out.push_back({"gpu", "gpu" + std::to_string(m_firstIndex + static_cast<int>(d.index)),
                       attrs.dump()});
    }
    return out;
}

} // namespace tierscope
