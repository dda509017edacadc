#pragma once

#include "core/analysis/PathSkew.h"
#include "core/model/DeviceRecord.h"

#include <cstdint>
#include <vector>

namespace tierscope {

class Store;

// The NVMe native-multipath heads of a device table (what BlockStatCollector::devices()
// records: each path disk's "path_of", "ana_state", "transport", "traddr", "trsvcid", and the
// subsystem's "iopolicy"), as PathSkew reads them, optionally with each path's traffic over a
// span from the stored block series.
class MultipathHeads {
  public:
    // Heads with at least one path, sorted by name, paths sorted by name; no traffic.
    static std::vector<PathSkew::Head> fromDevices(const std::vector<DeviceRecord>& devices);

    // Each path's bytes (block/<path>/read_bytes_per_s + write_bytes_per_s, integrated over
    // the intervals that end inside [t0Ns, t1Ns]) and its time-weighted mean queue depth
    // (block/<path>/queue_depth). A path without both byte series in the session, or without
    // a sample interval in the span, keeps no bytes.
    static void addTraffic(std::vector<PathSkew::Head>& heads, Store& store, std::int64_t sessionId,
                           std::int64_t t0Ns, std::int64_t t1Ns);
};

} // namespace tierscope
