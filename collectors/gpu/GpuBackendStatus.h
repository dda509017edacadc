#pragma once

#include "core/model/DeviceRecord.h"

#include <string>

namespace tierscope {

// Whether a vendor backend (amd, nvidia, ascend) can be used here, and if not, why, in words a
// user can act on. Stored in the session's device table as kind "backend".
struct GpuBackendStatus {
    std::string backend;
    bool available = false;
    std::string reason; // why unavailable; empty when available
    std::string detail; // e.g. "2 GPU(s) via librocm_smi64 5.2.3"

    std::string summary() const; // "AMD backend unavailable: ..." / "AMD backend: 2 GPU(s) ..."
    DeviceRecord toDeviceRecord() const;
};

} // namespace tierscope
