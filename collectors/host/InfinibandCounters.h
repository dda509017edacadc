#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// Data counters of one InfiniBand/RoCE port (/sys/class/infiniband/<dev>/ports/<n>/counters).
struct InfinibandCounters {
    std::string device;
    std::string port;
    std::uint64_t rxBytes = 0;
    std::uint64_t txBytes = 0;

    // port_rcv_data and port_xmit_data count 32-bit words (octets divided by 4, per the IBA
    // spec), so they are multiplied by 4 here. nullopt when either counter is missing.
    static std::optional<InfinibandCounters>
    fromCounterFiles(const std::string& device, const std::string& port,
                     const std::map<std::string, std::string>& counterFiles);

    // Parses `grep -H . counters/*` output ("path:value" per line) into name -> text, the form
    // the fixtures are captured in.
    static std::map<std::string, std::string> parseGrepDump(std::string_view text);
};

} // namespace tierscope
