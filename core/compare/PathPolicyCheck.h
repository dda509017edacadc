#pragma once

#include "core/compare/Comparison.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

class Store;
struct ComparisonResult;

// The NVMe multipath I/O policy under each side's KV tier: the subsystem's iopolicy (numa,
// round-robin, queue-depth) of the device under the runs' tier directory (their summary's
// kv_tier) and the devices it is stacked on, from the sessions' device tables. Two sides whose
// tier devices ran under different policies spread their I/O differently over the paths: a
// warning of both sides, as the figures were not made on the same footing. A side whose runs
// name no tier directory, or whose device has no policy, gives no flag.
class PathPolicyCheck {
  public:
    // The policies of one side: device -> its iopolicy.
    using Policies = std::map<std::string, std::string>;
    static Policies read(Store& store, const ComparisonSide& side);
    // "round-robin on A's nvme1n1, numa on B's nvme2n1"; empty when they agree or a side is
    // unknown.
    static std::string differs(const Policies& a, const Policies& b);
    static void addTo(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                      ComparisonResult& out);
};

} // namespace tierscope
