#include "collectors/gpu/NvidiaNvml.h"

#include <algorithm>
#include <spdlog/spdlog.h>

namespace tierscope {

NvidiaNvml::NvidiaNvml(const std::string& path) : m_lib({path}) {}

NvidiaNvml::~NvidiaNvml() {
    if (m_shutdown)
        m_shutdown();
}

std::shared_ptr<NvidiaNvml> NvidiaNvml::open(const std::string& libraryPath,
                                             GpuBackendStatus& status) {
    status = {"nvidia", "NVIDIA", "GPU", false, "", ""};
    std::shared_ptr<NvidiaNvml> nvml(new NvidiaNvml(libraryPath));
    if (!nvml->m_lib.loaded()) {
        status.reason = libraryPath + " not found";
        spdlog::debug("NVML: {}", nvml->m_lib.error());
        return nullptr;
    }
    nvml::Return (*init)() = nullptr;
    nvml::Return (*count)(unsigned int*) = nullptr;
    nvml::Return (*handleByIndex)(unsigned int, nvml::Device*) = nullptr;
    nvml::Return (*getName)(nvml::Device, char*, unsigned int) = nullptr;
    nvml::Return (*getPci)(nvml::Device, nvml::PciInfo*) = nullptr;
    nvml::Return (*shutdown)() = nullptr;
    for (const auto& [ok, name] :
         {std::pair{nvml->m_lib.bind(init, "nvmlInit_v2"), "nvmlInit_v2"},
          std::pair{nvml->m_lib.bind(shutdown, "nvmlShutdown"), "nvmlShutdown"},
          std::pair{nvml->m_lib.bind(count, "nvmlDeviceGetCount_v2"), "nvmlDeviceGetCount_v2"},
          std::pair{nvml->m_lib.bind(handleByIndex, "nvmlDeviceGetHandleByIndex_v2"),
                    "nvmlDeviceGetHandleByIndex_v2"}}) {
        if (!ok) {
            status.reason = libraryPath + " lacks " + name;
            return nullptr;
        }
    }
    nvml->m_lib.bind(nvml->m_errorString, "nvmlErrorString");
    const nvml::Return initResult = init();
    if (initResult != nvml::kSuccess) {
        status.reason = "nvmlInit failed: " + std::string(nvml->m_errorString
                                                              ? nvml->m_errorString(initResult)
                                                              : std::to_string(initResult).c_str());
        return nullptr;
    }
    nvml->m_shutdown = shutdown;
    nvml->m_lib.bind(getName, "nvmlDeviceGetName");
    nvml->m_lib.bind(getPci, "nvmlDeviceGetPciInfo_v3");
    nvml->m_lib.bind(nvml->m_getUtilization, "nvmlDeviceGetUtilizationRates");
    nvml->m_lib.bind(nvml->m_getMemory, "nvmlDeviceGetMemoryInfo");
    nvml->m_lib.bind(nvml->m_getMemoryV2, "nvmlDeviceGetMemoryInfo_v2");
    nvml->m_lib.bind(nvml->m_getPcie, "nvmlDeviceGetPcieThroughput");
    nvml->m_lib.bind(nvml->m_getPower, "nvmlDeviceGetPowerUsage");
    nvml->m_lib.bind(nvml->m_getTemperature, "nvmlDeviceGetTemperature");
    nvml->m_lib.bind(nvml->m_getTotalEnergy, "nvmlDeviceGetTotalEnergyConsumption");
    // Renamed in NVML 12.2 (driver 535); drivers before it have only the old name.
    if (!nvml->m_lib.bind(nvml->m_getClocksEventReasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        nvml->m_lib.bind(nvml->m_getClocksEventReasons,
                         "nvmlDeviceGetCurrentClocksThrottleReasons");
    nvml->m_lib.bind(nvml->m_getLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth");
    nvml->m_lib.bind(nvml->m_getMaxLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
    nvml->m_lib.bind(nvml->m_getLinkGen, "nvmlDeviceGetCurrPcieLinkGeneration");
    nvml->m_lib.bind(nvml->m_getMaxLinkGen, "nvmlDeviceGetMaxPcieLinkGeneration");
    nvml->m_lib.bind(nvml->m_getGpuMaxLinkGen, "nvmlDeviceGetGpuMaxPcieLinkGeneration");
    nvml->bindProcessList(nvml->m_computeProcesses, "nvmlDeviceGetComputeRunningProcesses");
    nvml->bindProcessList(nvml->m_graphicsProcesses, "nvmlDeviceGetGraphicsRunningProcesses");

    unsigned int n = 0;
    if (count(&n) != nvml::kSuccess || n == 0) {
        status.reason = "NVML reports no NVIDIA GPU";
        return nullptr;
    }
    for (unsigned int i = 0; i < n; ++i) {
        Device d;
        d.index = i;
        if (handleByIndex(i, &d.handle) != nvml::kSuccess)
            continue;
        char name[96] = {};
        if (getName && getName(d.handle, name, sizeof name) == nvml::kSuccess)
            d.name = name;
        nvml::PciInfo pci{};
        if (getPci && getPci(d.handle, &pci) == nvml::kSuccess)
            d.busId = pci.busId;
        nvml->m_devices.push_back(std::move(d));
    }
    status.available = true;
    status.detail = std::to_string(nvml->m_devices.size()) + " GPU(s) via " + libraryPath;
    return nvml;
}

bool NvidiaNvml::check(nvml::Return r, const Device& d, const char* field) {
    if (r == nvml::kSuccess)
        return true;
    if (m_logOnce.first(std::to_string(d.index) + field + std::to_string(r)))
        spdlog::info("NVIDIA GPU {} ({}): {} not reported: {}", d.index, d.busId, field,
                     m_errorString ? m_errorString(r) : std::to_string(r).c_str());
    return false;
}

std::optional<nvml::Utilization> NvidiaNvml::utilization(const Device& d) {
    nvml::Utilization u{};
    if (!m_getUtilization || !check(m_getUtilization(d.handle, &u), d, "utilization"))
        return std::nullopt;
    return u;
}

std::optional<NvidiaNvml::Memory> NvidiaNvml::memory(const Device& d) {
    if (m_getMemoryV2) {
        nvml::MemoryV2 m{};
        m.version = nvml::kMemoryV2Version;
        if (!check(m_getMemoryV2(d.handle, &m), d, "memory (v2)"))
            return std::nullopt;
        return Memory{static_cast<double>(m.used), static_cast<double>(m.total)};
    }
    nvml::Memory m{};
    if (!m_getMemory || !check(m_getMemory(d.handle, &m), d, "memory"))
        return std::nullopt;
    return Memory{static_cast<double>(m.used), static_cast<double>(m.total)};
}

std::optional<double> NvidiaNvml::pcieBytesPerS(const Device& d, int counter) {
    unsigned int kbPerS = 0;
    if (!m_getPcie || !check(m_getPcie(d.handle, counter, &kbPerS), d, "PCIe throughput"))
        return std::nullopt;
    return static_cast<double>(kbPerS) * 1024.0;
}

std::optional<double> NvidiaNvml::powerW(const Device& d) {
    unsigned int milliwatts = 0;
    if (!m_getPower || !check(m_getPower(d.handle, &milliwatts), d, "power"))
        return std::nullopt;
    return static_cast<double>(milliwatts) / 1000.0;
}

std::optional<double> NvidiaNvml::temperatureC(const Device& d) {
    unsigned int celsius = 0;
    if (!m_getTemperature ||
        !check(m_getTemperature(d.handle, nvml::kTemperatureGpu, &celsius), d, "temperature"))
        return std::nullopt;
    return static_cast<double>(celsius);
}

std::optional<unsigned long long> NvidiaNvml::totalEnergyMj(const Device& d) {
    unsigned long long millijoules = 0;
    if (!m_getTotalEnergy || !check(m_getTotalEnergy(d.handle, &millijoules), d, "total energy"))
        return std::nullopt;
    return millijoules;
}

std::optional<unsigned long long> NvidiaNvml::clocksEventReasons(const Device& d) {
    unsigned long long reasons = 0;
    if (!m_getClocksEventReasons ||
        !check(m_getClocksEventReasons(d.handle, &reasons), d, "clocks event reasons"))
        return std::nullopt;
    return reasons;
}

std::optional<unsigned> NvidiaNvml::readUint(UintGetter getter, const Device& d,
                                             const char* field) {
    unsigned int value = 0;
    if (!getter || !check(getter(d.handle, &value), d, field))
        return std::nullopt;
    return value;
}

NvidiaNvml::PcieLink NvidiaNvml::pcieLink(const Device& d) {
    return {readUint(m_getLinkWidth, d, "PCIe link width"),
            readUint(m_getMaxLinkWidth, d, "PCIe maximum link width"),
            readUint(m_getLinkGen, d, "PCIe link generation"),
            readUint(m_getMaxLinkGen, d, "PCIe maximum link generation"),
            readUint(m_getGpuMaxLinkGen, d, "GPU's maximum PCIe generation")};
}

void NvidiaNvml::bindProcessList(ProcessListFn& fn, const std::string& base) {
    // _v3 and _v2 fill nvmlProcessInfo_v2_t; the unversioned entry point, all that older
    // drivers have, fills the two-field v1 struct.
    static const std::string kNames[] = {"_v3", "_v2"};
    for (const auto& suffix : kNames) {
        if (m_lib.bind(fn.v2, (base + suffix).c_str())) {
            fn.name = base + suffix;
            return;
        }
    }
    if (m_lib.bind(fn.v1, base.c_str()))
        fn.name = base;
}

nvml::Return NvidiaNvml::readProcessList(const ProcessListFn& fn, const Device& d,
                                         std::vector<nvml::ProcessInfoV2>& out) {
    // The list can grow between asking its size and reading it: retry with the size NVML
    // says it needs, plus room for a few more.
    unsigned int capacity = 32;
    for (int attempt = 0; attempt < 4; ++attempt) {
        unsigned int count = capacity;
        nvml::Return r = nvml::kSuccess;
        if (fn.v2) {
            out.assign(capacity, nvml::ProcessInfoV2{});
            r = fn.v2(d.handle, &count, out.data());
        } else {
            std::vector<nvml::ProcessInfoV1> v1(capacity);
            r = fn.v1(d.handle, &count, v1.data());
            out.clear();
            for (unsigned int i = 0; r == nvml::kSuccess && i < count && i < capacity; ++i)
                out.push_back({v1[i].pid, v1[i].usedGpuMemory, 0, 0});
        }
        if (r == nvml::kSuccess) {
            out.resize(std::min(count, capacity));
            return r;
        }
        if (r != nvml::kErrorInsufficientSize)
            return r;
        capacity = count + 8;
    }
    return nvml::kErrorInsufficientSize;
}

NvidiaNvml::RunningProcesses NvidiaNvml::runningProcesses(const Device& d) {
    RunningProcesses result;
    if (!m_computeProcesses.bound()) {
        result.reason = m_lib.path() + " lacks nvmlDeviceGetComputeRunningProcesses";
        return result;
    }
    std::vector<RunningProcess> list;
    auto merge = [&list](const std::vector<nvml::ProcessInfoV2>& infos, bool compute) {
        for (const auto& info : infos) {
            auto it = std::find_if(list.begin(), list.end(),
                                   [&](const RunningProcess& p) { return p.pid == info.pid; });
            if (it == list.end())
                it = list.insert(list.end(), RunningProcess{info.pid, std::nullopt, false, false});
            (compute ? it->compute : it->graphics) = true;
            if (info.usedGpuMemory == nvml::kValueNotAvailable)
                continue;
            // A process in both lists is one process with one allocation, reported twice:
            // the larger figure, not the sum.
            it->usedBytes = std::max(it->usedBytes.value_or(0), info.usedGpuMemory);
        }
    };
    std::vector<nvml::ProcessInfoV2> infos;
    const nvml::Return r = readProcessList(m_computeProcesses, d, infos);
    if (!check(r, d, "compute processes")) {
        result.reason = m_computeProcesses.name + ": " +
                        (m_errorString ? m_errorString(r) : std::to_string(r).c_str());
        return result;
    }
    merge(infos, true);
    // The graphics list only adds: a driver that cannot list graphics work still lists compute.
    if (m_graphicsProcesses.bound() &&
        check(readProcessList(m_graphicsProcesses, d, infos), d, "graphics processes"))
        merge(infos, false);
    result.list = std::move(list);
    return result;
}

} // namespace tierscope
