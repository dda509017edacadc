#include "core/util/ProcessIdentity.h"

#include <charconv>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace tierscope {

namespace {

std::string firstLine(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string linkTarget(const char* path) {
    char buffer[256] = {};
    const ssize_t n = ::readlink(path, buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

} // namespace

ProcessIdentity ProcessIdentity::self() {
    ProcessIdentity id;
    id.bootId = firstLine("/proc/sys/kernel/random/boot_id");
    id.pidNamespace = linkTarget("/proc/self/ns/pid");
    id.pid = ::getpid();
    id.startTicks = startTicksOf(id.pid).value_or(0);
    return id;
}

std::optional<std::int64_t> ProcessIdentity::parseStartTicks(std::string_view stat) {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so fields are counted
    // from the last ')'. After it come field 3 (state) onwards; starttime is field 22.
    const auto close = stat.rfind(')');
    if (close == std::string_view::npos)
        return std::nullopt;
    std::size_t pos = close + 1;
    for (int field = 3; field <= 22; ++field) {
        while (pos < stat.size() && stat[pos] == ' ')
            ++pos;
        const std::size_t end = std::min(stat.find(' ', pos), stat.size());
        if (pos >= end)
            return std::nullopt;
        if (field == 22) {
            std::int64_t ticks = 0;
            const auto [ptr, ec] = std::from_chars(stat.data() + pos, stat.data() + end, ticks);
            if (ec != std::errc() || ptr != stat.data() + end)
                return std::nullopt;
            return ticks;
        }
        pos = end;
    }
    return std::nullopt;
}

std::optional<std::int64_t> ProcessIdentity::startTicksOf(std::int64_t pid) {
    const std::string line = firstLine("/proc/" + std::to_string(pid) + "/stat");
    return line.empty() ? std::nullopt : parseStartTicks(line);
}

bool ProcessIdentity::provablyGone(const ProcessIdentity& here) const {
    // WAL needs shared memory, so every writer of a workspace runs on this machine: another
    // boot id means a reboot in between.
    if (!bootId.empty() && !here.bootId.empty() && bootId != here.bootId)
        return true;
    if (pidNamespace != here.pidNamespace || pid <= 0)
        return false;
    const auto ticks = startTicksOf(pid);
    return !ticks || *ticks != startTicks;
}

} // namespace tierscope
