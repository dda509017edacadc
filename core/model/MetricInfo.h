#pragma once

#include "core/model/MetricDescriptor.h"

#include <cstdint>

namespace tierscope {

struct MetricInfo {
    std::int64_t id = 0;
    std::int64_t sessionId = 0;
    MetricDescriptor descriptor;
};

} // namespace tierscope
