#include "core/util/ClockSource.h"

#include <chrono>

namespace tierscope {

namespace {

class SystemClocks final : public ClockSource {
  public:
    std::int64_t monotonicNs() const override {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    std::int64_t wallNs() const override {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
};

} // namespace

const ClockSource& ClockSource::system() {
    static const SystemClocks clocks;
    return clocks;
}

} // namespace tierscope
