#pragma once

#include "collectors/base/Collector.h"
#include "collectors/host/InfinibandCounters.h"
#include "collectors/host/NetDevParser.h"
#include "collectors/host/ProcStatParser.h"
#include "collectors/base/SystemPaths.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// Host pressure: CPU busy (total and per core), memory, page cache, dirty and writeback,
// network interface and RDMA port throughput.
class HostCollector : public Collector {
  public:
    explicit HostCollector(SystemPaths paths);

    std::string name() const override { return "host"; }
    std::vector<Reading> sample(std::int64_t tNs) override;

  private:
    void sampleCpu(std::vector<Reading>& out);
    void sampleMemory(std::vector<Reading>& out);
    void sampleNetwork(std::vector<Reading>& out, double seconds);
    void sampleRdma(std::vector<Reading>& out, double seconds);
    std::vector<InfinibandCounters> readRdmaPorts();

    SystemPaths m_paths;
    std::map<std::string, CpuTimes> m_cpu;
    std::map<std::string, NetDevCounters> m_net;
    std::map<std::string, InfinibandCounters> m_rdma;
    std::int64_t m_previousT = 0;
};

} // namespace tierscope
