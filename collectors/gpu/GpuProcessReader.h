#pragma once

#include "collectors/base/SystemPaths.h"
#include "collectors/gpu/GpuBackends.h"
#include "collectors/gpu/GpuProcessSnapshot.h"

#include <memory>

namespace tierscope {

class AmdRocmSmi;
class AscendDcmi;
class NvidiaNvml;

// The processes on each GPU, from the vendor libraries that list them: NVML's running
// processes and rocm-smi's KFD process table. Ascend NPUs are listed without processes (DCMI's
// process calls are not bound). Opens the backends itself, numbering GPUs as GpuBackends does,
// so GPU n here is gpu/<n>/ in the recording.
class GpuProcessReader {
  public:
    // Opening can take a while (rocm-smi is probed in a child process): not on a GUI thread.
    GpuProcessReader(const SystemPaths& paths, const GpuBackends::Libraries& libraries);
    ~GpuProcessReader();

    GpuProcessSnapshot read();
    bool anyGpu() const;

  private:
    void addNames(GpuProcessSnapshot::Gpu& gpu) const;

    SystemPaths m_paths;
    std::vector<GpuBackendStatus> m_statuses;
    std::shared_ptr<AmdRocmSmi> m_amd;
    std::shared_ptr<NvidiaNvml> m_nvml;
    std::shared_ptr<AscendDcmi> m_dcmi;
    int m_nvmlFirst = 0;
    int m_ascendFirst = 0;
};

} // namespace tierscope
