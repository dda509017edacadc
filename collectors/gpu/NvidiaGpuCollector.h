#pragma once

#include "collectors/base/Collector.h"
#include "collectors/gpu/EnergyCounter.h"
#include "collectors/gpu/NvidiaNvml.h"

#include <map>

namespace tierscope {

// Per NVIDIA GPU: utilization (gpu and memory), memory used/total, PCIe tx/rx, power,
// temperature, the energy counter (Volta and later), the clocks event (throttle) reasons and
// the PCIe link's current and maximum width and speed through NVML.
class NvidiaGpuCollector : public Collector {
  public:
    NvidiaGpuCollector(std::shared_ptr<NvidiaNvml> nvml, int firstIndex);

    std::string name() const override { return "gpu-nvidia"; }
    std::vector<Reading> sample(std::int64_t tNs) override;
    std::vector<DeviceRecord> devices() override;

  private:
    std::shared_ptr<NvidiaNvml> m_nvml;
    int m_firstIndex;
    std::map<unsigned, EnergyCounter> m_energy; // by NVML index
};

} // namespace tierscope
