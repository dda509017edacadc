#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// What crossed each layer between a KV tier and the GPU over one run: what the engine says it
// read from its storage tiers and loaded into GPU memory, what the block device under the
// tier's directory read (and each path or member below it), what the NICs and RDMA ports
// received and what the GPUs received over PCIe. Each is absent where its source was not
// recorded, never zero. The ratios side by side expose what no one figure shows: a tier
// served from the page cache, an I/O path the block layer cannot see, a staged GPU load.
struct BytesRoute {
    std::optional<double> engineTierBytes;    // vLLM's tier reads, else LMCache's remote reads
    std::string engineTierSource;             // "vLLM offload tiers", "LMCache remote backend"
    std::optional<double> engineGpuLoadBytes; // loaded into the GPU from the offload tier
    std::string device;                       // the tier directory's block device
    std::string deviceWhy;                    // why there is none
    std::optional<double> deviceBytes;        // what it read
    std::vector<std::pair<std::string, double>> belowBytes; // its members and NVMe paths
    std::optional<double> nicBytes;                         // received by every interface but lo
    std::optional<double> rdmaBytes;  // received by every InfiniBand/RoCE port
    std::optional<double> gpuRxBytes; // received by every GPU over PCIe

    // Below this many engine bytes a ratio says nothing (a run that read a few blocks).
    static constexpr double kJudgedBytes = 64.0 * 1024 * 1024;

    struct Confound {
        std::string id;   // "page-cache", "kernel-blind", "gpu-staging"
        std::string text; // with its numbers
    };
    // The known confounds, each a validity warning on the run:
    // - page-cache: the device read under 25 % of what the engine read from the tier: the
    //   rest came from the page cache or DRAM (or an I/O path the block layer cannot see);
    // - kernel-blind: the device read under 1 % while the NICs and RDMA ports received at
    //   least half of it: a user-space initiator (SPDK NVMe-oF) or io_uring passthrough that
    //   /proc/diskstats cannot count;
    // - gpu-staging: the GPUs received under half of what the engine loaded into them.
    std::vector<Confound> confounds() const;
    bool empty() const;
    // "engine tier 4.00 GB (vLLM offload tiers) | device nvme1n1 3.98 GB (100 %; nvme1c1n1
    // 2.00 GB, nvme1c2n1 1.98 GB) | NIC 4.10 GB | RDMA absent | engine GPU load 4.00 GB | GPU
    // PCIe rx 3.90 GB (98 %)".
    std::string text() const;
};

} // namespace tierscope
