#include "collectors/ProcStatParser.h"

#include "collectors/TextFields.h"

namespace tierscope {

std::vector<CpuTimes> ProcStatParser::parse(std::string_view text) {
    std::vector<CpuTimes> out;
    for (const auto line : TextFields::lines(text)) {
        if (!line.starts_with("cpu"))
            continue;
        const auto f = TextFields::split(line);
        if (f.size() < 5)
            continue;
        CpuTimes t;
        t.name = std::string(f[0]);
        std::uint64_t* slots[] = {&t.user,   &t.nice, &t.system,  &t.idle,
                                  &t.iowait, &t.irq,  &t.softirq, &t.steal};
        bool ok = true;
        for (std::size_t i = 0; i < 8 && i + 1 < f.size(); ++i)
            ok = ok && TextFields::toUint(f[i + 1], *slots[i]);
        if (ok)
            out.push_back(t);
    }
    return out;
}

std::optional<double> ProcStatParser::busyPercent(const CpuTimes& before, const CpuTimes& after) {
    if (after.total() <= before.total() || after.idleAll() < before.idleAll())
        return std::nullopt;
    const double total = static_cast<double>(after.total() - before.total());
    const double idle = static_cast<double>(after.idleAll() - before.idleAll());
    if (idle > total)
        return std::nullopt;
    return 100.0 * (total - idle) / total;
}

} // namespace tierscope
