#pragma once

#include "collectors/base/Collector.h"
#include "collectors/gpu/GpuBackendStatus.h"
#include "collectors/base/SystemPaths.h"

#include <memory>
#include <vector>

namespace tierscope {

// Every GPU/NPU vendor backend this machine might have, each with its state. GPUs are numbered
// globally (AMD first, then NVIDIA, then Ascend) so metric paths gpu/<n>/... never collide.
struct GpuBackends {
    struct Libraries {
        std::string nvml = "libnvidia-ml.so.1";
        std::vector<std::string> dcmi = {"libdcmi.so",
                                         "/usr/local/Ascend/driver/lib64/driver/libdcmi.so",
                                         "/usr/local/dcmi/libdcmi.so"};
        // $TIERSCOPE_NVML_LIBRARY and $TIERSCOPE_DCMI_LIBRARY replace the defaults.
        static Libraries fromEnvironment();
    };

    std::vector<GpuBackendStatus> statuses;
    std::vector<std::unique_ptr<Collector>> collectors;     // sampled at the recording interval
    std::vector<std::unique_ptr<Collector>> slowCollectors; // >= 1 s per read (AMD PCIe)

    static GpuBackends open(const SystemPaths& paths, const Libraries& libraries);
    std::vector<DeviceRecord> devices() const;
};

} // namespace tierscope
