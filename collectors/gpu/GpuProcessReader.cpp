#include "collectors/gpu/GpuProcessReader.h"

#include "collectors/gpu/AmdRocmSmi.h"
#include "collectors/gpu/AscendDcmi.h"
#include "collectors/gpu/NvidiaNvml.h"
#include "collectors/gpu/ProcessName.h"

#include <algorithm>

namespace tierscope {

GpuProcessReader::GpuProcessReader(const SystemPaths& paths,
                                   const GpuBackends::Libraries& libraries)
    : m_paths(paths) {
    // The order and the numbering of GpuBackends::open: AMD, then NVIDIA, then Ascend.
    GpuBackendStatus status;
    m_amd = AmdRocmSmi::open(paths, status);
    m_statuses.push_back(status);
    m_nvmlFirst = m_amd ? static_cast<int>(m_amd->devices().size()) : 0;
    m_nvml = NvidiaNvml::open(libraries.nvml, status);
    m_statuses.push_back(status);
    m_ascendFirst = m_nvmlFirst + (m_nvml ? static_cast<int>(m_nvml->devices().size()) : 0);
    m_dcmi = AscendDcmi::open(libraries.dcmi, status);
    m_statuses.push_back(status);
}

GpuProcessReader::~GpuProcessReader() = default;

bool GpuProcessReader::anyGpu() const {
    return m_amd || m_nvml || m_dcmi;
}

void GpuProcessReader::addNames(GpuProcessSnapshot::Gpu& gpu) const {
    if (!gpu.processes)
        return;
    for (auto& p : *gpu.processes)
        p.name = ProcessName::read(m_paths.proc, p.pid);
    // The largest first, as nvtop sorts; then by pid, so equal rows keep their place.
    std::stable_sort(gpu.processes->begin(), gpu.processes->end(),
                     [](const auto& a, const auto& b) {
                         if (a.vramBytes.value_or(-1) != b.vramBytes.value_or(-1))
                             return a.vramBytes.value_or(-1) > b.vramBytes.value_or(-1);
                         return a.pid < b.pid;
                     });
}

GpuProcessSnapshot GpuProcessReader::read() {
    GpuProcessSnapshot out;
    out.statuses = m_statuses;
    if (m_amd) {
        std::string reason;
        const auto processes = m_amd->computeProcesses(reason);
        std::vector<std::vector<GpuProcessSnapshot::Process>> byDevice;
        if (processes)
            byDevice = AmdRocmSmi::processesByDevice(*processes, m_amd->devices().size());
        for (const auto& d : m_amd->devices()) {
            GpuProcessSnapshot::Gpu gpu{
                static_cast<int>(d.index), "amd", d.name, d.busId, {}, reason};
            if (processes)
                gpu.processes = byDevice[d.index];
            addNames(gpu);
            out.gpus.push_back(std::move(gpu));
        }
    }
    if (m_nvml) {
        for (const auto& d : m_nvml->devices()) {
            GpuProcessSnapshot::Gpu gpu{
                m_nvmlFirst + static_cast<int>(d.index), "nvidia", d.name, d.busId, {}, ""};
            auto running = m_nvml->runningProcesses(d);
            if (running.list) {
                gpu.processes.emplace();
                for (const auto& r : *running.list) {
                    GpuProcessSnapshot::Process p;
                    p.pid = r.pid;
                    if (r.usedBytes)
                        p.vramBytes = static_cast<double>(*r.usedBytes);
                    p.compute = r.compute;
                    p.graphics = r.graphics;
                    gpu.processes->push_back(std::move(p));
                }
            } else {
                gpu.reason = running.reason;
            }
            addNames(gpu);
            out.gpus.push_back(std::move(gpu));
        }
    }
    if (m_dcmi) {
        for (const auto& d : m_dcmi->devices())
            out.gpus.push_back({m_ascendFirst + d.index, "ascend", d.name, "", std::nullopt,
                                "tierscope does not read DCMI's process list"});
    }
    return out;
}

} // namespace tierscope
