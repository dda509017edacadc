#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope::test {

// Builds a sysfs + KFD topology tree that the real rocm-smi-lib 5.2.3 accepts, to be
// bind-mounted over /sys/class in a private mount namespace. Values are planted exactly so
// tests can compare the collector's samples with them.
struct FakeAmdGpu {
    std::string busId; // 0000:03:00.0
    unsigned busyPct = 0;
    std::optional<unsigned> memBusyPct; // absent: the attribute file does not exist
    std::uint64_t vramUsed = 0;
    std::uint64_t vramTotal = 0;
    std::uint64_t gttUsed = 0;
    std::uint64_t powerMicrowatts = 0;
    int edgeMilliC = 0;
    int junctionMilliC = 0;
    std::uint64_t pcieSent = 0, pcieReceived = 0, pcieMaxPayload = 0;
    std::optional<std::uint16_t> gfxActivity; // written into a gpu_metrics v1 blob
    std::optional<std::uint16_t> umcActivity;
    std::optional<std::uint32_t> throttleStatus; // absent: the firmware's 0xffffffff
    // gpu_metrics' energy_accumulator, in the counts rocm-smi states a resolution for; absent:
    // all ones, as amdgpu leaves a field its firmware does not fill.
    std::optional<std::uint64_t> energyAccumulator;
    // The PCI device's link attributes as drivers/pci/pci-sysfs.c prints them
    // ("16.0 GT/s PCIe", "16"); empty: the file does not exist.
    std::string linkSpeed, maxLinkSpeed, linkWidth, maxLinkWidth;
    // amdgpu's current_compute_partition / current_memory_partition, one mode name per line as
    // amdgpu_gfx.c and amdgpu_gmc.c print them ("SPX", "NPS1"); empty: no such file.
    std::string computePartition, memoryPartition;
    bool suspended = false;
    std::string serial;
    std::string uniqueId; // "0x..."
};

class FakeAmdGpuTree {
  public:
    // root is the directory that will appear as /sys/class.
    static void build(const std::string& root, const std::vector<FakeAmdGpu>& gpus);
    // A KFD topology that makes rocm-smi-lib 5.2.3 abort (no io_links directory).
    static void buildBrokenTopology(const std::string& root);
    // One GPU whose KFD properties file never answers.
    static void buildHangingTopology(const std::string& root);
    static std::string deviceDir(const std::string& root, const FakeAmdGpu& gpu);
    // Rewrites the GPU's gpu_metrics blob with its current values, as the firmware's next
    // metrics table would read.
    static void writeGpuMetrics(const std::string& root, const FakeAmdGpu& gpu);
};

} // namespace tierscope::test
