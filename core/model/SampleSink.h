#pragma once

#include "core/model/Reading.h"

#include <cstdint>
#include <span>

namespace tierscope {

// Where collectors deliver their readings; implementations must be thread-safe because each
// collector samples on its own thread.
class SampleSink {
  public:
    virtual ~SampleSink() = default;
    virtual void write(std::int64_t tNs, std::span<const Reading> readings) = 0;
};

} // namespace tierscope
