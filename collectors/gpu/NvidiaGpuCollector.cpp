#include "collectors/gpu/NvidiaGpuCollector.h"

#include "collectors/gpu/GpuLabels.h"

#include <iterator>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

// The PCIe base specification's transfer rate of each generation, in GT/s.
std::optional<double> gigaTransfersPerS(const std::optional<unsigned>& generation) {
    static constexpr double kRates[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
    if (!generation || *generation < 1 || *generation > std::size(kRates))
        return std::nullopt;
    return kRates[*generation - 1];
}

std::optional<double> number(const std::optional<unsigned>& v) {
    return v ? std::optional<double>(*v) : std::nullopt;
}

} // namespace

NvidiaGpuCollector::NvidiaGpuCollector(std::shared_ptr<NvidiaNvml> nvml, int firstIndex)
    : m_nvml(std::move(nvml)), m_firstIndex(firstIndex) {}

std::vector<Reading> NvidiaGpuCollector::sample(std::int64_t tNs) {
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
        // NVML's counter is 64-bit millijoules: it goes down only when the driver reloads.
        if (const auto mj = m_nvml->totalEnergyMj(d)) {
            auto& counter = m_energy.try_emplace(d.index, false).first->second;
            const auto counts = counter.add(tNs, *mj, 1e-3);
            out.push_back(
                {{prefix + "energy_j", "J", "counter", labels}, static_cast<double>(counts) / 1e3});
        }
        if (const auto reasons = m_nvml->clocksEventReasons(d)) {
            emit("throttle_reasons", "1", static_cast<double>(*reasons));
            // An idle GPU's low clocks are not held back: the idle reason alone is no throttle.
            emit("throttled", "1", (*reasons & ~nvml::kClocksEventReasonGpuIdle) ? 1.0 : 0.0);
        }
        const auto link = m_nvml->pcieLink(d);
        emit("pcie_link_width", "1", number(link.width));
        emit("pcie_link_width_max", "1", number(link.maxWidth));
        emit("pcie_link_speed_gts", "GT/s", gigaTransfersPerS(link.gen));
        emit("pcie_link_speed_max_gts", "GT/s", gigaTransfersPerS(link.maxGen));
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
        const auto link = m_nvml->pcieLink(d);
        if (link.maxWidth)
            attrs["pcie_link_width_max"] = *link.maxWidth;
        if (const auto gts = gigaTransfersPerS(link.maxGen))
            attrs["pcie_link_speed_max_gts"] = *gts;
        if (const auto gts = gigaTransfersPerS(link.gpuMaxGen))
            attrs["gpu_pcie_link_speed_max_gts"] = *gts;
        out.push_back({"gpu", "gpu" + std::to_string(m_firstIndex + static_cast<int>(d.index)),
                       attrs.dump()});
    }
    return out;
}

} // namespace tierscope
