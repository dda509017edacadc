#include "collectors/host/ProcStatParser.h"

#include "collectors/base/TextFields.h"

namespace tierscope {

namespace {

// Ticks elapsed between two readings of one counter; nullopt when it went backwards.
std::optional<std::uint64_t> ticks(std::uint64_t before, std::uint64_t after) {
    if (after < before)
        return std::nullopt;
    return after - before;
}

} // namespace

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
    const auto total = ticks(before.total(), after.total());
    const auto notBusy = ticks(before.idleAll() + before.steal, after.idleAll() + after.steal);
    if (!total || *total == 0 || !notBusy || *notBusy > *total)
        return std::nullopt;
    return 100.0 * static_cast<double>(*total - *notBusy) / static_cast<double>(*total);
}

std::optional<double> ProcStatParser::stealPercent(const CpuTimes& before, const CpuTimes& after) {
    const auto total = ticks(before.total(), after.total());
    const auto steal = ticks(before.steal, after.steal);
    if (!total || *total == 0 || !steal || *steal > *total)
        return std::nullopt;
    return 100.0 * static_cast<double>(*steal) / static_cast<double>(*total);
}

} // namespace tierscope
