#include "collectors/gpu/AmdGpuCollector.h"

#include "collectors/gpu/GpuLabels.h"

#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

void addLinkAndPartition(AmdRocmSmi& smi, const AmdRocmSmi::Device& d, nlohmann::json& attrs) {
    const auto link = smi.pcieLink(d);
    if (link.maxWidth)
        attrs["pcie_link_width_max"] = *link.maxWidth;
    if (link.maxSpeedGts)
        attrs["pcie_link_speed_max_gts"] = *link.maxSpeedGts;
    const auto partition = smi.partition(d);
    if (!partition.compute.empty())
        attrs["compute_partition"] = partition.compute;
    if (!partition.memory.empty())
        attrs["memory_partition"] = partition.memory;
}

} // namespace

AmdGpuCollector::AmdGpuCollector(std::shared_ptr<AmdRocmSmi> smi, int firstIndex)
    : m_smi(std::move(smi)), m_firstIndex(firstIndex) {}

std::vector<Reading> AmdGpuCollector::sample(std::int64_t tNs) {
    const bool slow = !m_lastSlowNs || tNs - *m_lastSlowNs >= kSlowPeriodNs;
    if (slow)
        m_lastSlowNs = tNs;
    std::vector<Reading> out;
    for (const auto& d : m_smi->devices()) {
        const std::string prefix =
            "gpu/" + std::to_string(m_firstIndex + static_cast<int>(d.index)) + "/";
        const std::string labels = GpuLabels::json("amd", d.name, d.busId);
        auto emit = [&](const char* what, const char* unit, const std::optional<double>& v) {
            if (v)
                out.push_back({{prefix + what, unit, "gauge", labels}, *v});
        };
        const bool suspended = m_smi->suspended(d);
        emit("suspended", "1", suspended ? 1.0 : 0.0);
        if (suspended)
            continue;
        emit("busy_pct", "percent", m_smi->busyPct(d));
        emit("mem_busy_pct", "percent", m_smi->memoryBusyPct(d));
        emit("vram_used_bytes", "bytes", m_smi->vramUsedBytes(d));
        emit("power_w", "W", m_smi->averagePowerW(d));
        const auto activity = m_smi->activity(d);
        // Every cycle, not once a second: a run's energy is read at its edges, and a coarser
        // counter would shift up to a second of it between neighbouring runs.
        const auto resolutionUj =
            activity.energyCount ? m_smi->energyResolutionUj(d) : std::nullopt;
        if (resolutionUj) {
            auto& counter = m_energy.try_emplace(d.index, true).first->second;
            const auto counts = counter.add(tNs, *activity.energyCount, *resolutionUj * 1e-6);
            out.push_back({{prefix + "energy_j", "J", "counter", labels},
                           static_cast<double>(counts) * *resolutionUj / 1e6});
        }
        emit("gfx_activity_pct", "percent", activity.gfxPct);
        emit("umc_activity_pct", "percent", activity.umcPct);
        if (activity.throttleStatus) {
            emit("throttle_status", "1", static_cast<double>(*activity.throttleStatus));
            emit("throttled", "1", *activity.throttleStatus != 0 ? 1.0 : 0.0);
        }
        if (!slow)
            continue;
        const auto link = m_smi->pcieLink(d);
        emit("pcie_link_width", "1", link.width);
        emit("pcie_link_width_max", "1", link.maxWidth);
        emit("pcie_link_speed_gts", "GT/s", link.speedGts);
        emit("pcie_link_speed_max_gts", "GT/s", link.maxSpeedGts);
        if (d.vramTotalBytes)
            emit("vram_total_bytes", "bytes", static_cast<double>(*d.vramTotalBytes));
        emit("gtt_used_bytes", "bytes", m_smi->gttUsedBytes(d));
        emit("temp_edge_c", "degC", m_smi->edgeTempC(d));
        emit("temp_junction_c", "degC", m_smi->junctionTempC(d));
    }
    return out;
}

std::vector<DeviceRecord> AmdGpuCollector::devices() {
    std::vector<DeviceRecord> out;
    for (const auto& d : m_smi->devices()) {
        nlohmann::json attrs = {
            {"vendor", "amd"},       {"model", d.name},
            {"bus", d.busId},        {"serial", d.serial},
            {"rsmi_index", d.index}, {"power_state", m_smi->suspended(d) ? "suspended" : "active"}};
        if (d.deviceId) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%04x", *d.deviceId);
            attrs["device_id"] = hex;
        }
        if (d.uniqueId) {
            char hex[24];
            std::snprintf(hex, sizeof hex, "0x%016llx",
                          static_cast<unsigned long long>(*d.uniqueId));
            attrs["unique_id"] = hex;
        }
        if (d.vramTotalBytes)
            attrs["vram_total_bytes"] = *d.vramTotalBytes;
        // amdgpu's own attributes can resume a suspended GPU to answer: not asked then.
        if (attrs["power_state"] == "active")
            addLinkAndPartition(*m_smi, d, attrs);
        out.push_back({"gpu", "gpu" + std::to_string(m_firstIndex + static_cast<int>(d.index)),
                       attrs.dump()});
    }
    return out;
}

} // namespace tierscope
