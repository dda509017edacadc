#pragma once

#include "collectors/base/LogOnce.h"
#include "collectors/base/SysfsAttribute.h"
#include "collectors/base/SystemPaths.h"
#include "collectors/gpu/GpuBackendStatus.h"
#include "collectors/gpu/GpuProcessSnapshot.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// rocm-smi-lib (linked), initialised once per process and shared by the AMD collectors. Every
// reading is optional: RSMI_STATUS_NOT_SUPPORTED, a missing file or any other failure is
// absent, never zero.
//
// rocm-smi opens, reads and closes a file on every call, which with 8 GPUs at 10 Hz costs
// ~0.6 % of a core on the build VM (bench_amdgpu). So for the three plain-integer attributes
// read every cycle (gpu_busy_percent, mem_busy_percent, mem_info_vram_used), rocm-smi decides
// once per GPU whether the reading is supported, and the hot path then rereads that same file
// through a descriptor it keeps open. Power, temperatures and gpu_metrics, whose files vary by
// GPU generation, always go through the library.
class AmdRocmSmi {
  public:
    struct Device {
        std::uint32_t index = 0; // rsmi device index
        std::uint64_t bdfId = 0; // rsmi's (domain << 32) | (bus << 8) | (dev << 3) | fn
        std::string busId;       // 0000:03:00.0
        std::string deviceDir;   // the card's PCI device directory, empty if no card was found
        std::string name;
        std::optional<std::uint16_t> deviceId;
        std::optional<std::uint64_t> uniqueId;
        std::string serial;
        std::optional<std::uint64_t> vramTotalBytes;
    };
    // pcie_bw's two message counts added up, times the maximum payload: an upper bound on the
    // bytes that crossed the link in both directions together. Which count is which direction
    // is not settled (the kernel's counter setup says the first counts received messages,
    // rocm-smi names it "sent"), so no direction is claimed.
    struct PcieThroughput {
        double bytesPerS = 0;
    };
    struct Activity {
        std::optional<double> gfxPct;
        std::optional<double> umcPct;
        // gpu_metrics' throttle_status: which throttlers are active, bits specific to the
        // ASIC's firmware; 0 none.
        std::optional<std::uint32_t> throttleStatus;
        // energy_accumulator: the counter rsmi_dev_energy_count_get returns, in counts of
        // energyResolutionUj. Taken from this read of gpu_metrics, not from a second read of
        // the same file every cycle, which would cost as much as activity does (bench_amdgpu).
        std::optional<std::uint64_t> energyCount;
    };
    // The card's PCI device's link, from the kernel's PCI sysfs attributes.
    struct PcieLink {
        std::optional<double> width, maxWidth;       // lanes
        std::optional<double> speedGts, maxSpeedGts; // GT/s
    };
    // amdgpu's current_compute_partition (SPX, DPX, QPX, CPX, ...) and
    // current_memory_partition (NPS1, NPS4, ...); empty where the GPU has none.
    struct Partition {
        std::string compute, memory;
    };

    // A process the KFD knows: its VRAM (rocm-smi sums it over the process's GPUs) and the rsmi
    // indices of those GPUs.
    struct ComputeProcess {
        std::uint32_t pid = 0;
        std::optional<std::uint64_t> vramBytes;
        std::vector<std::uint32_t> devices;
    };

    // nullptr when the backend is unavailable; status says why (or what was found).
    static std::shared_ptr<AmdRocmSmi> open(const SystemPaths& paths, GpuBackendStatus& status);
    ~AmdRocmSmi();
    AmdRocmSmi(const AmdRocmSmi&) = delete;
    AmdRocmSmi& operator=(const AmdRocmSmi&) = delete;

    const std::vector<Device>& devices() const { return m_devices; }
    // Read from sysfs, never through the driver, so asking does not wake the GPU.
    bool suspended(const Device& d);

    std::optional<double> busyPct(const Device& d);
    std::optional<double> memoryBusyPct(const Device& d);
    std::optional<double> vramUsedBytes(const Device& d);
    std::optional<double> gttUsedBytes(const Device& d);
    std::optional<double> averagePowerW(const Device& d);
    std::optional<double> edgeTempC(const Device& d);
    std::optional<double> junctionTempC(const Device& d);
    Activity activity(const Device& d);
    // The resolution rsmi_dev_energy_count_get states for the energy counter, in uJ (15.3 for
    // every ASIC in rocm-smi-lib 5.2.3 and since), asked once per GPU.
    std::optional<double> energyResolutionUj(const Device& d);
    // Blocks ~1 s in the kernel on real hardware: call it from its own thread. Read from sysfs
    // directly: rsmi_dev_pci_throughput_get holds rocm-smi's per-device mutex for that second,
    // which would stall every other reading of the same GPU (tst_amdgpu measures this).
    std::optional<PcieThroughput> pcieThroughput(const Device& d);
    // "count count max_payload" as the amdgpu pcie_bw attribute prints it.
    static std::optional<PcieThroughput> parsePcieBw(const std::string& text);
    // Read from sysfs: rocm-smi-lib 5.2.3 has no call for these.
    PcieLink pcieLink(const Device& d);
    Partition partition(const Device& d);
    // "16.0 GT/s PCIe" (kernel 5.x and later), "8 GT/s" (older): GT/s; "Unknown": nullopt.
    static std::optional<double> parseLinkSpeed(const std::string& text);
    // rsmi_compute_process_info_get, then per pid _info_by_pid_get and _gpus_get; read from the
    // KFD's process table, so a suspended GPU stays asleep. Absent with a reason on failure.
    std::optional<std::vector<ComputeProcess>> computeProcesses(std::string& reason);
    // Per rsmi device index, the processes on it. A process's VRAM belongs to one GPU only when
    // it uses one GPU; spread over several, its share of each is unknown: absent.
    static std::vector<std::vector<GpuProcessSnapshot::Process>>
    processesByDevice(const std::vector<ComputeProcess>& processes, std::size_t deviceCount);

  private:
    AmdRocmSmi() = default;
    void discoverDevices(const SystemPaths& paths);
    // Logs the first failure of each (device, field, status) once; returns whether ok.
    bool check(int status, const Device& d, const char* field);

    std::vector<Device> m_devices;
    std::vector<std::unique_ptr<SysfsAttribute>> m_runtimeStatus; // by device index
    struct DirectReads {
        bool probed = false; // rocm-smi asked once, while the GPU was awake
        std::unique_ptr<SysfsAttribute> busy, memoryBusy, vramUsed;
    };
    DirectReads& directReads(const Device& d);
    std::optional<double> readDirect(std::unique_ptr<SysfsAttribute>& attribute, const Device& d,
                                     const char* field);
    std::vector<DirectReads> m_direct;                       // by device index
    std::vector<std::optional<double>> m_energyResolutionUj; // by device index
    std::mutex m_directMutex;
    std::mutex m_statusMutex;
    LogOnce m_logOnce;
};

} // namespace tierscope
