#pragma once

#include "collectors/base/Collector.h"
#include "collectors/gpu/AmdRocmSmi.h"

#include <memory>

namespace tierscope {

// PCIe bytes/s per AMD GPU, both directions together (gpu/<n>/pcie_bytes_per_s, labelled
// direction "both"): pcie_bw's two counts do not say for certain which way they went. The
// kernel's pcie_bw read sleeps 1 s under a lock, so this collector gets its own scheduler
// thread and never delays the other GPU readings. The values are message counts times the
// maximum payload size: an upper bound, labelled so.
class AmdPcieCollector : public Collector {
  public:
    AmdPcieCollector(std::shared_ptr<AmdRocmSmi> smi, int firstIndex);

    std::string name() const override { return "gpu-amd-pcie"; }
    std::vector<Reading> sample(std::int64_t tNs) override;

  private:
    std::shared_ptr<AmdRocmSmi> m_smi;
    int m_firstIndex;
};

} // namespace tierscope
