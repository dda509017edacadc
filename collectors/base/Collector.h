#pragma once

#include "core/model/DeviceRecord.h"
#include "core/model/Reading.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// One source of readings. sample() is called from one scheduler thread at a time; it returns
// only what the source reported this cycle (rates need two cycles, so the first returns none).
class Collector {
  public:
    virtual ~Collector() = default;
    virtual std::string name() const = 0;
    virtual std::vector<Reading> sample(std::int64_t tNs) = 0;
    // What this collector knows about the machine, for the session's device table.
    virtual std::vector<DeviceRecord> devices() { return {}; }
    // Called from another thread when sampling stops. A collector whose sample() can run for
    // long (a large scrape) returns from it early and reports nothing for that cycle; it must
    // therefore be safe to call while sample() runs.
    virtual void interrupt() {}
};

} // namespace tierscope
