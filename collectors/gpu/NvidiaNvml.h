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

    // One process NVML lists on a GPU; usedBytes absent where the driver cannot tell.
    struct RunningProcess {
        unsigned pid = 0;
        std::optional<unsigned long long> usedBytes;
        bool compute = false, graphics = false;
    };
    // Absent list: this library or driver cannot say (reason tells why in words).
    struct RunningProcesses {
        std::optional<std::vector<RunningProcess>> list;
        std::string reason;
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
    // nvmlDevice{Compute,Graphics}RunningProcesses (_v3, _v2 or the unversioned v1 layout,
    // whichever the driver has), one entry per pid.
    RunningProcesses runningProcesses(const Device& d);
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
    // The newest of the three entry points this driver has, for one process list.
    struct ProcessListFn {
        nvml::Return (*v2)(nvml::Device, unsigned int*, nvml::ProcessInfoV2*) = nullptr;
        nvml::Return (*v1)(nvml::Device, unsigned int*, nvml::ProcessInfoV1*) = nullptr;
        std::string name; // the symbol bound, for the reason a failure gives
        bool bound() const { return v2 || v1; }
    };
    ProcessListFn m_computeProcesses, m_graphicsProcesses;
    void bindProcessList(ProcessListFn& fn, const std::string& base);
    nvml::Return readProcessList(const ProcessListFn& fn, const Device& d,
                                 std::vector<nvml::ProcessInfoV2>& out);
    std::optional<unsigned> readUint(UintGetter getter, const Device& d, const char* field);
    std::vector<Device> m_devices;
    LogOnce m_logOnce;
};

} // namespace tierscope
