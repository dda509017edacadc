#include "collectors/host/InfinibandCounters.h"

#include "collectors/base/TextFields.h"

namespace tierscope {

std::optional<InfinibandCounters>
InfinibandCounters::fromCounterFiles(const std::string& device, const std::string& port,
                                     const std::map<std::string, std::string>& counterFiles) {
    auto value = [&](const char* name) -> std::optional<std::uint64_t> {
        const auto it = counterFiles.find(name);
        if (it == counterFiles.end())
            return std::nullopt;
        const auto f = TextFields::split(it->second);
        std::uint64_t v = 0;
        if (f.empty() || !TextFields::toUint(f[0], v))
            return std::nullopt;
        return v;
    };
    const auto rx = value("port_rcv_data");
    const auto tx = value("port_xmit_data");
    if (!rx || !tx)
        return std::nullopt;
    return InfinibandCounters{device, port, *rx * 4, *tx * 4};
}

std::map<std::string, std::string> InfinibandCounters::parseGrepDump(std::string_view text) {
    std::map<std::string, std::string> out;
    for (const auto line : TextFields::lines(text)) {
        const auto colon = line.rfind(':');
        if (colon == std::string_view::npos)
            continue;
        auto path = line.substr(0, colon);
        const auto slash = path.rfind('/');
        if (slash != std::string_view::npos)
            path = path.substr(slash + 1);
        out.emplace(std::string(path), std::string(line.substr(colon + 1)));
    }
    return out;
}

} // namespace tierscope
