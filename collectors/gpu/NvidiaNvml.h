#pragma once

#include "collectors/base/LogOnce.h"
#include "collectors/base/SharedLibrary.h"
#include "collectors/gpu/GpuBackendStatus.h"
#include "collectors/gpu/NvidiaNvmlApi.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// NVML loaded with dlopen. Required entry points missing means the backend is unavailable;
// an optional one missing (or NVML_ERROR_NOT_SUPPORTED) leaves that reading absent.
class NvidiaNvml {
  public:
    struct Device {
        unsigned index = 0;
        nvml::Device handle = nullptr;
        std::string name;
        std::string busId;
    };
    struct Memory {
        double usedBytes = 0;
        double totalBytes = 0;
    };
    // The PCIe link as NVML reports it: generations (1..6), not GT/s. maxGen is what this GPU
    // and this slot allow together; gpuMaxGen what the GPU alone could do.
    struct PcieLink {
        std::optional<unsigned> width, maxWidth;
        std::optional<unsigned> gen, maxGen, gpuMaxGen;
    };

    // libraryPath: normally "libnvidia-ml.so.1"; $TIERSCOPE_NVML_LIBRARY overrides it.
    static std::shared_ptr<NvidiaNvml> open(const std::string& libraryPath,
                                            GpuBackendStatus& status);
    ~NvidiaNvml();

    const std::vector<Device>& devices() const { return m_devices; }
    std::optional<nvml::Utilization> utilization(const Device& d);
    std::optional<Memory> memory(const Device& d); // v2 struct where the library has it
    std::optional<double> pcieBytesPerS(const Device& d, int counter);
    std::optional<double> powerW(const Device& d);
    std::optional<double> temperatureC(const Device& d);
    // nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver was last loaded
    // (Volta and later; NVML_ERROR_NOT_SUPPORTED before).
    std::optional<unsigned long long> totalEnergyMj(const Device& d);
    // nvmlDeviceGetCurrentClocksEventReasons, or its older name ...ThrottleReasons.
    std::optional<unsigned long long> clocksEventReasons(const Device& d);
    PcieLink pcieLink(const Device& d);
    bool usesMemoryV2() const { return m_getMemoryV2 != nullptr; }

  private:
    explicit NvidiaNvml(const std::string& path);
    bool check(nvml::Return r, const Device& d, const char* field);

    SharedLibrary m_lib;
    nvml::Return (*m_shutdown)() = nullptr;
    const char* (*m_errorString)(nvml::Return) = nullptr;
    nvml::Return (*m_getUtilization)(nvml::Device, nvml::Utilization*) = nullptr;
    nvml::Return (*m_getMemory)(nvml::Device, nvml::Memory*) = nullptr;
    nvml::Return (*m_getMemoryV2)(nvml::Device, nvml::MemoryV2*) = nullptr;
    nvml::Return (*m_getPcie)(nvml::Device, int, unsigned int*) = nullptr;
    nvml::Return (*m_getPower)(nvml::Device, unsigned int*) = nullptr;
    nvml::Return (*m_getTemperature)(nvml::Device, int, unsigned int*) = nullptr;
    nvml::Return (*m_getTotalEnergy)(nvml::Device, unsigned long long*) = nullptr;
    nvml::Return (*m_getClocksEventReasons)(nvml::Device, unsigned long long*) = nullptr;
    using UintGetter = nvml::Return (*)(nvml::Device, unsigned int*);
    UintGetter m_getLinkWidth = nullptr, m_getMaxLinkWidth = nullptr;
    UintGetter m_getLinkGen = nullptr, m_getMaxLinkGen = nullptr, m_getGpuMaxLinkGen = nullptr;
    std::optional<unsigned> readUint(UintGetter getter, const Device& d, const char* field);
    std::vector<Device> m_devices;
    LogOnce m_logOnce;
};

} // namespace tierscope
