#include "collectors/storage/DiskstatsParser.h"

#include "collectors/base/TextFields.h"

namespace tierscope {

std::vector<DiskStat> DiskstatsParser::parse(std::string_view text) {
    std::vector<DiskStat> out;
    for (const auto line : TextFields::lines(text)) {
        const auto f = TextFields::split(line);
        if (f.size() < 14)
            continue;
        DiskStat d;
        std::uint64_t major = 0, minor = 0;
        std::uint64_t* slots[] = {&d.reads,    &d.readsMerged,  &d.sectorsRead,    &d.readMs,
                                  &d.writes,   &d.writesMerged, &d.sectorsWritten, &d.writeMs,
                                  &d.inFlight, &d.ioMs,         &d.weightedIoMs};
        bool ok = TextFields::toUint(f[0], major) && TextFields::toUint(f[1], minor);
        for (std::size_t i = 0; i < 11; ++i)
            ok = ok && TextFields::toUint(f[i + 3], *slots[i]);
        if (!ok)
            continue;
        d.major = static_cast<unsigned>(major);
        d.minor = static_cast<unsigned>(minor);
        d.name = std::string(f[2]);
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace tierscope
