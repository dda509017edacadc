#pragma once

#include "core/model/DeviceRecord.h"

#include <string>

namespace tierscope {

// Whether a vendor backend (amd, nvidia, ascend) can be used here, and if not, why, in words a
// user can act on. Stored in the session's device table as kind "backend", with the name every
// view shows ("AMD GPU"), so a new vendor is named in its backend and nowhere else.
struct GpuBackendStatus {
    std::string backend; // "amd"
    std::string vendor;  // "AMD"
    std::string device;  // "GPU", "NPU"
    bool available = false;
    std::string reason; // why unavailable; empty when available
    std::string detail; // e.g. "2 GPU(s) via librocm_smi64 5.2.3"

    std::string summary() const; // "AMD backend unavailable: ..." / "AMD backend: 2 GPU(s) ..."
    std::string displayName() const { return vendor + " " + device; } // "AMD GPU"
    DeviceRecord toDeviceRecord() const;
};

} // namespace tierscope
