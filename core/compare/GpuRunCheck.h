#pragma once

#include "core/compare/Comparison.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

class Store;
struct ComparisonResult;

// The GPU side of the link, per measured run: a GPU that throttled for more than 1 % of the
// run, a PCIe link that never reached its maximum width or speed while its GPU was busy, and a
// compute or memory partition mode that differs between the two sides are each a warning of
// that side: the figures were not made on the same hardware footing. A series a backend does
// not report gives no flag, never a false one.
class GpuRunCheck {
  public:
    // What one GPU's series say over one run.
    struct Gpu {
        std::string name;                          // "gpu0", "gpu2@node7"
        std::size_t samples = 0;                   // of gpu/<n>/throttled within the run
        std::size_t throttled = 0;                 // of them, those at 1
        bool busy = false;                         // busy_pct above 0 in some sample of the run
        std::optional<double> widthPeak, widthMax; // lanes
        std::optional<double> speedPeakGts, speedMaxGts;
    };
    struct Run {
        std::int64_t id = 0;
        std::vector<Gpu> gpus;
    };
    struct Side {
        std::vector<Run> runs; // its measured runs
        // The modes the GPUs of its sessions' device tables were in; empty: not reported.
        std::set<std::string> computePartitions, memoryPartitions;
    };
    struct Flag {
        char side = 'A';
        std::int64_t run = 0; // 0: the side's runs together
        std::string check;    // "gpu_throttle", "gpu_pcie_link", "gpu_partition"
        std::string text;     // with its numbers
    };
    static constexpr double kThrottledShareLimit = 0.01;

    static std::vector<Flag> of(const Side& a, const Side& b);
    static Side read(Store& store, const ComparisonSide& side);
    // of(read(a), read(b)), each flag a warning of its side and a row of its checks.
    static void addTo(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                      ComparisonResult& out);
};

} // namespace tierscope
