#pragma once

#include "collectors/storage/BlockRates.h"

#include <map>
#include <optional>
#include <string>

namespace tierscope {

// block/total over one interval, each byte counted once. Stacked devices (dm, md, bcache,
// drbd, zvol) are left out: their members carry the same traffic. An NVMe native multipath
// namespace counts through its head when the head's counters move (I/O accounting on the
// head: kernel 6.0+ with queue/iostats = 1), otherwise through the sum of its hidden paths
// (older kernels, or accounting off, print the head as all zeros); never both.
class BlockTotal {
  public:
    struct Sum {
        double readBytesPerS = 0;
        double writeBytesPerS = 0;
    };

    // One device's rates for the interval; devices without rates are simply not added.
    void add(const std::string& name, const BlockRates& rates);
    // nullopt when no device counts towards the total this interval.
    std::optional<Sum> sum() const;

  private:
    std::map<std::string, BlockRates> m_disks; // whole disks, multipath heads included
    std::map<std::string, Sum> m_pathsByHead;  // hidden path disks, summed per head
};

} // namespace tierscope
