#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

// Measures the ceilings of the device behind a directory with the workloads' io_uring engine:
// sequential write and read (1 MiB, QD 32), random 4 KiB reads at QD 64 (IOPS), and random
// 4 KiB reads at QD 1 (the unloaded latency). Each phase stops at its share of the duration
// or at the end of the file. The probe file is created new and always removed.
class StorageProbe {
  public:
    struct Options {
        std::string dir;
        std::uint64_t sizeBytes = 4ULL << 30;
        std::chrono::milliseconds duration{20000};
    };
    struct Result {
        std::string device; // the whole disk ("nvme0n1"), empty where none (tmpfs, NFS)
        std::string serial; // serial or WWID from sysfs, where the device has one
        // An NVMe namespace's identity across reconnects (the kernel name is not): subsystem
        // NQN and namespace id, with the transport. Empty for other devices.
        std::string subsysNqn, nsid, transport;
        double writeBytesPerS = 0;
        double readBytesPerS = 0;
        double randomReadIops = 0;
        double unloadedReadS = 0; // mean 4 KiB read at QD 1
        bool direct = true;       // false: the filesystem refused O_DIRECT (page cache)
    };

    // Throws WorkloadError (no such directory, no space, an I/O error).
    static Result run(const Options& options, const std::atomic<bool>* cancel = nullptr);
    // The whole disk holding the filesystem of device number major:minor, from sysRoot
    // (normally "/sys"): a partition's parent. Empty for a device without a block node.
    static std::string wholeDisk(unsigned major, unsigned minor, const std::string& sysRoot);
    // Fills the serial and the NVMe identity of result.device from sysRoot (normally "/sys").
    static void identify(Result& result, const std::string& sysRoot);
    // The name a device record and the bottleneck analysis use: the disk, or "workload DIR".
    static std::string storageName(const Result& result, const std::string& dir);
};

} // namespace tierscope
