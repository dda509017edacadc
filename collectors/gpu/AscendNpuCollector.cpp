#include "collectors/gpu/AscendNpuCollector.h"

#include "collectors/gpu/GpuLabels.h"

#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::string location(const AscendDcmi::Device& d) {
    return "card " + std::to_string(d.card) + " device " + std::to_string(d.device);
}

} // namespace

AscendNpuCollector::AscendNpuCollector(std::shared_ptr<AscendDcmi> dcmi, int firstIndex)
    : m_dcmi(std::move(dcmi)), m_firstIndex(firstIndex) {}

std::vector<Reading> AscendNpuCollector::sample(std::int64_t tNs) {
    std::vector<Reading> out;
    for (const auto& d : m_dcmi->devices()) {
        const std::string prefix = "gpu/" + std::to_string(m_firstIndex + d.index) + "/";
        const std::string labels = GpuLabels::json("ascend", d.name, location(d));
        auto emit = [&](const char* what, const char* unit, const std::optional<double>& v) {
            if (v)
                out.push_back({{prefix + what, unit, "gauge", labels}, *v});
        };
        emit("busy_pct", "percent", m_dcmi->aiCoreUtilizationPct(d));
        if (const auto hbm = m_dcmi->hbm(d)) {
            emit("vram_used_bytes", "bytes", static_cast<double>(hbm->memoryUsageMb) * 1024 * 1024);
            emit("vram_total_bytes", "bytes", static_cast<double>(hbm->memorySizeMb) * 1024 * 1024);
        }
        const auto watts = m_dcmi->powerW(d);
        emit("power_w", "W", watts);
        if (watts) {
            auto energyLabels = nlohmann::json::parse(labels);
            energyLabels["integrated"] = true;
            out.push_back({{prefix + "energy_j", "J", "counter", energyLabels.dump()},
                           m_energy[d.index].add(tNs, *watts)});
        }
        emit("temp_c", "degC", m_dcmi->temperatureC(d));
    }
    return out;
}

std::vector<DeviceRecord> AscendNpuCollector::devices() {
    std::vector<DeviceRecord> out;
    for (const auto& d : m_dcmi->devices()) {
        nlohmann::json attrs = {{"vendor", "ascend"},
                                {"model", d.name},
                                {"bus", location(d)},
                                {"card", d.card},
                                {"device", d.device}};
        if (const auto hbm = m_dcmi->hbm(d))
            attrs["vram_total_bytes"] = static_cast<double>(hbm->memorySizeMb) * 1024 * 1024;
        out.push_back({"gpu", "gpu" + std::to_string(m_firstIndex + d.index), attrs.dump()});
    }
    return out;
}

} // namespace tierscope
