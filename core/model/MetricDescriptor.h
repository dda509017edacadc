#pragma once

#include <string>

namespace tierscope {

// Identity of a series inside a session. Units are SI base units ("bytes", "bytes/s", "s",
// "percent", "1/s"); display units are the UI's business.
struct MetricDescriptor {
    std::string path;
    std::string unit;
    std::string kind = "gauge"; // gauge | rate | counter
    std::string labels = "{}";  // JSON object, e.g. {"transport":"tcp"}
};

} // namespace tierscope
