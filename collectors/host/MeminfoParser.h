#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace tierscope {

class MeminfoParser {
  public:
    // Field name to bytes ("kB" values are multiplied out; unit-less counts stay as they are).
    static std::map<std::string, std::uint64_t> parse(std::string_view text);
};

} // namespace tierscope
