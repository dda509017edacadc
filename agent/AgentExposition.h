#pragma once

#include "collectors/storage/DiskstatsParser.h"
#include "core/model/DeviceRecord.h"
#include "core/model/Reading.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// What `tierscope agent` exposes at one scrape. Block counters are the kernel's own
// cumulative counts, so Prometheus' rate() works on them; GPU and host values are the
// collectors' latest gauges.
struct AgentSnapshot {
    std::vector<DiskStat> disks;                   // whole disks only
    std::map<std::string, std::string> transports; // block device -> pcie, tcp, rdma, ...
    std::map<std::string, std::string> nqns;       // block device -> subsystem NQN
    std::vector<Reading> gpu;
    std::vector<Reading> host;
    std::vector<DeviceRecord> controllers; // kind "nvme-controller"
    std::string version;
    double scrapes = 0; // served before this one
};

// Renders a snapshot in the Prometheus text format 0.0.4: tierscope_* names in base units,
// HELP and TYPE on every family, counters as counters (*_total), label values escaped.
class AgentExposition {
  public:
    static std::string render(const AgentSnapshot& snapshot);
    static std::string escapeLabel(const std::string& value);
};

} // namespace tierscope
