#pragma once

#include <string>

namespace tierscope {

// What discovery found. kind: "nvme-controller", "block", "gpu", "backend", ...
// attrs is a JSON object so each kind keeps its own fields without schema churn.
struct DeviceRecord {
    std::string kind;
    std::string name;
    std::string attrs = "{}";
};

} // namespace tierscope
