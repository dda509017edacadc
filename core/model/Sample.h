#pragma once

#include <cstdint>

namespace tierscope {

// One stored observation of one metric; t is wall-clock nanoseconds since the epoch (UTC).
struct Sample {
    std::int64_t tNs = 0;
    double value = 0.0;
};

} // namespace tierscope
