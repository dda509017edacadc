#pragma once

#include "collectors/base/Collector.h"
#include "collectors/gpu/AscendDcmi.h"
#include "collectors/gpu/PowerIntegrator.h"

#include <map>

namespace tierscope {

// Per Ascend NPU: AI-core utilization, HBM used/total, power and temperature through DCMI, and
// energy integrated from the power readings (DCMI has no energy counter), labelled
// "integrated" so no figure built on it passes for a hardware counter's.
class AscendNpuCollector : public Collector {
  public:
    AscendNpuCollector(std::shared_ptr<AscendDcmi> dcmi, int firstIndex);

    std::string name() const override { return "gpu-ascend"; }
    std::vector<Reading> sample(std::int64_t tNs) override;
    std::vector<DeviceRecord> devices() override;

  private:
    std::shared_ptr<AscendDcmi> m_dcmi;
    int m_firstIndex;
    std::map<int, PowerIntegrator> m_energy; // by discovery index
};

} // namespace tierscope
