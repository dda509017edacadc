#pragma once

#include "collectors/base/Collector.h"
#include "collectors/storage/DiskstatsParser.h"
#include "collectors/base/SystemPaths.h"

#include <map>
#include <set>
#include <string>

namespace tierscope {

// Per-device iostat figures from /proc/diskstats for every whole disk except loop/ram/zram,
// and block/total (see BlockTotal). Hidden NVMe multipath path disks get metrics of their own
// (so path imbalance shows); in the total each namespace counts once, through its head or its
// paths. devices() says of each device whether it counts in the total ("in_total").
class BlockStatCollector : public Collector {
  public:
    // transports: block device name -> NVMe transport ("pcie", "tcp", "rdma", ...), from
    // NvmeDiscovery; becomes the "transport" label of the device's metrics.
    BlockStatCollector(SystemPaths paths, std::map<std::string, std::string> transports);

    std::string name() const override { return "block"; }
    std::vector<Reading> sample(std::int64_t tNs) override;
    std::vector<DeviceRecord> devices() override;

    // The pure part: readings for one interval, given both snapshots (exposed for tests).
    std::vector<Reading> ratesBetween(const std::vector<DiskStat>& before,
                                      const std::vector<DiskStat>& after, std::int64_t dtNs);

  private:
    bool isWholeDisk(const std::string& name);
    std::string labelsFor(const std::string& name) const;
    // "yes", "no: <stacked kind>", "if head idle" (a path disk), "if it moves" (a head).
    static std::string totalRule(const std::string& name, const std::set<std::string>& heads);

    SystemPaths m_paths;
    std::map<std::string, std::string> m_transports;
    std::map<std::string, bool> m_wholeDisk; // cache of the sysfs partition check
    std::vector<DiskStat> m_previous;
    std::int64_t m_previousT = 0;
};

} // namespace tierscope
