#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace tierscope {

// Allocation-free splitting for the whitespace-separated text of /proc.
class TextFields {
  public:
    static std::vector<std::string_view> lines(std::string_view text);
    static std::vector<std::string_view> split(std::string_view line);
    static bool toUint(std::string_view field, std::uint64_t& out);
};

} // namespace tierscope
