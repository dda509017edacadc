#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace tierscope {

class DurationParser {
  public:
    // "250ms", "30s", "1.5s", "10m", "2h", or a bare number of seconds. nullopt when malformed
    // or negative.
    static std::optional<std::chrono::nanoseconds> parse(std::string_view text);
};

} // namespace tierscope
