#pragma once

#include "collectors/gpu/GpuBackendStatus.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The processes using each GPU of this machine at one moment, as the vendor libraries list
// them (NVML's running processes, rocm-smi's KFD process table). Plain data: the GUI's GPU
// panel shows it and tests compare it field by field.
struct GpuProcessSnapshot {
    struct Process {
        std::uint32_t pid = 0;
        // /proc/<pid>/comm; absent when the process has gone or /proc would not say.
        std::optional<std::string> name;
        // Absent where the backend did not say (NVML_VALUE_NOT_AVAILABLE, or an AMD process
        // spread over several GPUs, for which rocm-smi gives only the sum).
        std::optional<double> vramBytes;
        bool compute = false;  // NVML's compute list named it; every rocm-smi process
        bool graphics = false; // NVML's graphics list named it
    };
    struct Gpu {
        int index = 0;      // n of the gpu/<n>/... metric paths
        std::string vendor; // "nvidia", "amd"
        std::string model;
        std::string busId;
        // Absent when this backend cannot list processes here; reason says why.
        std::optional<std::vector<Process>> processes;
        std::string reason;
    };

    std::vector<Gpu> gpus;
    // Every backend tried, available or not, in the order the recorder numbers GPUs.
    std::vector<GpuBackendStatus> statuses;
};

} // namespace tierscope
