#pragma once

#include <array>
#include <cstdint>

namespace tierscope {

// Bucket widths of the rollup table, in seconds, finest first.
inline constexpr std::array<std::int64_t, 3> kRollupLevelsS{1, 10, 60};
inline constexpr std::int64_t kNsPerS = 1'000'000'000;

inline std::int64_t bucketStart(std::int64_t tNs, std::int64_t levelS) {
    const std::int64_t width = levelS * kNsPerS;
    const std::int64_t q = tNs / width;
    return (tNs % width < 0 ? q - 1 : q) * width;
}

} // namespace tierscope
