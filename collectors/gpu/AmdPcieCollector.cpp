#include "collectors/gpu/AmdPcieCollector.h"

#include "collectors/gpu/GpuLabels.h"

#include <nlohmann/json.hpp>

namespace tierscope {

AmdPcieCollector::AmdPcieCollector(std::shared_ptr<AmdRocmSmi> smi, int firstIndex)
    : m_smi(std::move(smi)), m_firstIndex(firstIndex) {}

std::vector<Reading> AmdPcieCollector::sample(std::int64_t) {
    std::vector<Reading> out;
    for (const auto& d : m_smi->devices()) {
        if (m_smi->suspended(d))
            continue;
        const auto pcie = m_smi->pcieThroughput(d);
        if (!pcie)
            continue;
        const std::string prefix =
            "gpu/" + std::to_string(m_firstIndex + static_cast<int>(d.index)) + "/";
        auto labels = nlohmann::json::parse(GpuLabels::json("amd", d.name, d.busId, true));
        labels["direction"] = "both";
        out.push_back(
            {{prefix + "pcie_bytes_per_s", "bytes/s", "gauge", labels.dump()}, pcie->bytesPerS});
    }
    return out;
}

} // namespace tierscope
