#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

struct NetDevCounters {
    std::string interface;
    std::uint64_t rxBytes = 0;
    std::uint64_t rxPackets = 0;
    std::uint64_t txBytes = 0;
    std::uint64_t txPackets = 0;
};

class NetDevParser {
  public:
    // /proc/net/dev: two header lines, then "iface: rx(8 fields) tx(8 fields)".
    static std::vector<NetDevCounters> parse(std::string_view text);
};

} // namespace tierscope
