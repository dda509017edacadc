#include "collectors/gpu/GpuBackendStatus.h"

#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::string title(const std::string& backend) {
    if (backend == "amd")
        return "AMD";
    if (backend == "nvidia")
        return "NVIDIA";
    if (backend == "ascend")
        return "Ascend";
    return backend;
}

} // namespace

std::string GpuBackendStatus::summary() const {
    if (!available)
        return title(backend) + " backend unavailable: " + reason;
    return title(backend) + " backend: " + detail;
}

DeviceRecord GpuBackendStatus::toDeviceRecord() const {
    nlohmann::json attrs = {{"state", available ? "available" : "unavailable"}};
    if (!reason.empty())
        attrs["reason"] = reason;
    if (!detail.empty())
        attrs["detail"] = detail;
    attrs["summary"] = summary();
    return {"backend", backend, attrs.dump()};
}

} // namespace tierscope
