#include "collectors/host/MeminfoParser.h"

#include "collectors/base/TextFields.h"

namespace tierscope {

std::map<std::string, std::uint64_t> MeminfoParser::parse(std::string_view text) {
    std::map<std::string, std::uint64_t> out;
    for (const auto line : TextFields::lines(text)) {
        const auto colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        const auto f = TextFields::split(line.substr(colon + 1));
        std::uint64_t value = 0;
        if (f.empty() || !TextFields::toUint(f[0], value))
            continue;
        if (f.size() > 1 && f[1] == "kB")
            value *= 1024;
        out.emplace(std::string(line.substr(0, colon)), value);
    }
    return out;
}

} // namespace tierscope
