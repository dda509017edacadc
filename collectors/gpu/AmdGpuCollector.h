#pragma once

#include "collectors/base/Collector.h"
#include "collectors/gpu/AmdRocmSmi.h"
#include "collectors/gpu/EnergyCounter.h"

#include <map>
#include <memory>
#include <optional>

namespace tierscope {

// Per AMD GPU: busy %, memory-controller busy %, VRAM used/total, GTT used, average power,
// the energy counter (EnergyCounter: it may wrap at 32 bits), edge/junction temperature,
// gpu_metrics activity and throttle status, and the PCIe link's
// current and maximum width and speed. The partition modes are device attributes: they change
// only when an administrator repartitions the GPU, which re-enumerates it. PCIe throughput is
// AmdPcieCollector's, because its read sleeps a second in the kernel. A runtime-suspended GPU
// reports only gpu/<i>/suspended = 1 and is not polled, so monitoring never wakes it.
// Slow-moving readings (temperatures, GTT, the PCIe link, and VRAM total, which is read once at
// discovery) are taken at most once a second whatever the interval: at 10 Hz that halves the
// reads, the cost that matters with 8 GPUs (bench_amdgpu).
class AmdGpuCollector : public Collector {
  public:
    // firstIndex: global GPU number of rocm-smi device 0 (metric paths are gpu/<n>/...).
    AmdGpuCollector(std::shared_ptr<AmdRocmSmi> smi, int firstIndex);

    std::string name() const override { return "gpu-amd"; }
    std::vector<Reading> sample(std::int64_t tNs) override;
    std::vector<DeviceRecord> devices() override;

  private:
    static constexpr std::int64_t kSlowPeriodNs = 1'000'000'000;

    std::shared_ptr<AmdRocmSmi> m_smi;
    int m_firstIndex;
    std::optional<std::int64_t> m_lastSlowNs;
    std::map<std::uint32_t, EnergyCounter> m_energy; // by rsmi index
};

} // namespace tierscope
