#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tierscope {

class SizeParser {
  public:
    // A byte count: "4096", "4k", "1MiB", "8GiB", "10GB", "1.5T". KiB/MiB/GiB/TiB and the fio
    // style single letters k/m/g/t are powers of 1024; KB/MB/GB/TB are powers of 1000. Case
    // does not matter. nullopt when malformed, negative or over 2^63.
    static std::optional<std::uint64_t> parse(std::string_view text);
};

} // namespace tierscope
