#include "collectors/gpu/GpuBackendStatus.h"

#include <nlohmann/json.hpp>

namespace tierscope {

std::string GpuBackendStatus::summary() const {
    if (!available)
        return vendor + " backend unavailable: " + reason;
    return vendor + " backend: " + detail;
}

DeviceRecord GpuBackendStatus::toDeviceRecord() const {
    nlohmann::json attrs = {{"state", available ? "available" : "unavailable"}};
    if (!reason.empty())
        attrs["reason"] = reason;
    if (!detail.empty())
        attrs["detail"] = detail;
    attrs["summary"] = summary();
    attrs["display"] = displayName();
    return {"backend", backend, attrs.dump()};
}

} // namespace tierscope
