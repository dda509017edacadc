#include "collectors/host/NetDevParser.h"

#include "collectors/base/TextFields.h"

namespace tierscope {

std::vector<NetDevCounters> NetDevParser::parse(std::string_view text) {
    std::vector<NetDevCounters> out;
    for (const auto line : TextFields::lines(text)) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || line.find('|') != std::string_view::npos)
            continue;
        const auto name = TextFields::split(line.substr(0, colon));
        const auto f = TextFields::split(line.substr(colon + 1));
        if (name.size() != 1 || f.size() < 16)
            continue;
        NetDevCounters c;
        c.interface = std::string(name[0]);
        if (TextFields::toUint(f[0], c.rxBytes) && TextFields::toUint(f[1], c.rxPackets) &&
            TextFields::toUint(f[8], c.txBytes) && TextFields::toUint(f[9], c.txPackets))
            out.push_back(c);
    }
    return out;
}

} // namespace tierscope
