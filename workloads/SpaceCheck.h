#pragma once

#include <cstdint>
#include <string>

namespace tierscope {

// Storage workloads stop before they fill a disk: a write needs its bytes plus a reserve
// (1 % of the filesystem, at least 64 MiB) to stay free afterwards.
class SpaceCheck {
  public:
    struct Space {
        std::uint64_t available = 0;
        std::uint64_t total = 0;
    };
    static Space query(const std::string& dir); // throws WorkloadError
    static std::uint64_t reserve(const Space& space);
    // Throws WorkloadError::Kind::NoSpace with both figures when `bytes` do not fit.
    static void require(const std::string& dir, std::uint64_t bytes);
};

} // namespace tierscope
