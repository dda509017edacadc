#pragma once

#include "collectors/base/LogOnce.h"
#include "collectors/base/SharedLibrary.h"
#include "collectors/gpu/GpuBackendStatus.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Huawei Ascend DCMI (libdcmi.so), loaded with dlopen. Declarations follow the DCMI API
// reference; HBM sizes are in MB, power in 0.1 W, temperatures in degrees C.
class AscendDcmi {
  public:
    struct HbmInfo { // struct dcmi_hbm_info
        unsigned long long memorySizeMb;
        unsigned int freqMhz;
        unsigned long long memoryUsageMb;
        int temp;
        unsigned int bandwidthUtilRate;
    };
    struct ChipInfo { // struct dcmi_chip_info
        unsigned char chipType[32];
        unsigned char chipName[32];
        unsigned char chipVer[32];
        unsigned int aicoreCount;
    };
    struct Device {
        int index = 0; // position in discovery order
        int card = 0;
        int device = 0;
        std::string name;
    };
    static constexpr int kUtilizationAiCore = 2;

    // Tries $TIERSCOPE_DCMI_LIBRARY when set, else libdcmi.so and the driver's install paths.
    static std::shared_ptr<AscendDcmi> open(const std::vector<std::string>& candidates,
                                            GpuBackendStatus& status);

    const std::vector<Device>& devices() const { return m_devices; }
    std::optional<double> aiCoreUtilizationPct(const Device& d);
    std::optional<HbmInfo> hbm(const Device& d);
    std::optional<double> powerW(const Device& d);
    std::optional<double> temperatureC(const Device& d);

  private:
    explicit AscendDcmi(const std::vector<std::string>& candidates);
    bool check(int r, const Device& d, const char* field);

    SharedLibrary m_lib;
    int (*m_utilization)(int, int, int, unsigned int*) = nullptr;
    int (*m_hbm)(int, int, HbmInfo*) = nullptr;
    int (*m_power)(int, int, int*) = nullptr;
    int (*m_temperature)(int, int, int*) = nullptr;
    std::vector<Device> m_devices;
    LogOnce m_logOnce;
};

} // namespace tierscope
