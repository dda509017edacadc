#pragma once

// The subset of NVML that tierscope calls, declared from NVML's documented ABI so there is no
// build-time dependency on the CUDA toolkit. Loaded at run time from libnvidia-ml.so.1.
namespace tierscope::nvml {

using Return = int;
using Device = struct DeviceOpaque*;

constexpr Return kSuccess = 0;
constexpr Return kErrorNotSupported = 3;
constexpr Return kErrorInsufficientSize = 7;
// nvmlProcessInfo_t's usedGpuMemory when the driver cannot tell (e.g. without permission).
constexpr unsigned long long kValueNotAvailable = ~0ull;
constexpr int kPcieTxBytes = 0;    // NVML_PCIE_UTIL_TX_BYTES, KB/s
constexpr int kPcieRxBytes = 1;    // NVML_PCIE_UTIL_RX_BYTES, KB/s
constexpr int kTemperatureGpu = 0; // NVML_TEMPERATURE_GPU, degrees C
// nvmlClocksEventReasonGpuIdle (formerly nvmlClocksThrottleReasonGpuIdle): nothing runs, so
// the clocks are low by design, not held back.
constexpr unsigned long long kClocksEventReasonGpuIdle = 0x1ull;

struct Utilization { // nvmlUtilization_t
    unsigned int gpu;
    unsigned int memory;
};
struct Memory { // nvmlMemory_t (v1)
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
struct MemoryV2 { // nvmlMemory_v2_t
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};
constexpr unsigned int kMemoryV2Version = static_cast<unsigned int>(sizeof(MemoryV2)) | (2u << 24);
struct PciInfo { // nvmlPciInfo_t (v3)
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
};

// nvmlProcessInfo_v1_t: what the unversioned nvmlDevice{Compute,Graphics}RunningProcesses fill.
struct ProcessInfoV1 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
};
// nvmlProcessInfo_v2_t, also named nvmlProcessInfo_t: what the _v2 and _v3 entry points fill.
struct ProcessInfoV2 {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

} // namespace tierscope::nvml
