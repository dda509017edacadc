#include "collectors/host/ProcessIo.h"

#include "collectors/base/TextFields.h"
#include "core/util/FileDescriptor.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace tierscope {

namespace {

// stat is about 300 bytes and io about 120; anything far larger is not the kernel's file.
constexpr std::size_t kMaxText = 64 * 1024;

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

bool toInt(std::string_view field, int& out) {
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
    return ec == std::errc() && end == field.data() + field.size();
}

// A directory entry of the proc root that names a process: digits only, so that nothing else
// ("self", "..", a name planted in a fake tree) is ever opened as one.
std::optional<int> pidOf(std::string_view name) {
    if (name.empty() || name.size() > 10 ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    int pid = 0;
    if (!toInt(name, pid) || pid <= 0)
        return std::nullopt;
    return pid;
}

// The whole of one regular file under dirFd, never through a symbolic link, never blocking on
// a FIFO; 0 or the errno that stopped it.
int readAt(int dirFd, const char* name, std::string& out) {
    const FileDescriptor fd(
        ::openat(dirFd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0)
        return errno;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EINVAL;
    out.clear();
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0;
        out.append(buffer, static_cast<std::size_t>(n));
        if (out.size() > kMaxText)
            return EFBIG;
    }
}

// A process whose io the kernel will not show: another user's (the file is 0400 and the read
// checks ptrace access), as opposed to one that exited (ENOENT, ESRCH) or a file that is not
// the kernel's.
bool refused(int error) {
    return error == EACCES || error == EPERM;
}

struct Walk {
    std::vector<ProcessIoSample> processes;
    int unreadable = 0;
};

// One process: its stat, and its io when `want` asks for it, both through one descriptor of
// its directory, so both files are the same process's even if the pid is reused meanwhile.
void readProcess(int rootFd, const char* name, int pid,
                 const std::function<bool(const ProcessIo::StatFields&)>& want, Walk& out) {
    const FileDescriptor dir(
        ::openat(rootFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0) {
        out.unreadable += refused(errno) ? 1 : 0;
        return;
    }
    std::string text;
    if (const int error = readAt(dir.get(), "stat", text); error != 0) {
        out.unreadable += refused(error) ? 1 : 0;
        return;
    }
    const auto stat = ProcessIo::parseStat(text);
    if (!stat || !want(*stat))
        return;
    if (const int error = readAt(dir.get(), "io", text); error != 0) {
        out.unreadable += refused(error) ? 1 : 0;
        return;
    }
    const auto io = ProcessIo::parseIo(text);
    if (!io || !io->readBytes || !io->writeBytes)
        return;
    ProcessIoSample s;
    s.pid = pid;
    s.pgid = stat->pgid;
    s.ppid = stat->ppid;
    s.name = stat->comm;
    s.startTicks = stat->startTicks;
    s.readBytes = *io->readBytes;
    s.writeBytes = *io->writeBytes;
    out.processes.push_back(std::move(s));
}

Walk walk(const std::string& procRoot,
          const std::function<bool(const ProcessIo::StatFields&)>& want) {
    Walk out;
    const int rootFd = ::open(procRoot.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootFd < 0)
        return out;
    // The directory stream owns rootFd from here and closes it.
    DIR* dir = ::fdopendir(rootFd);
    if (!dir) {
        ::close(rootFd);
        return out;
    }
    while (const dirent* entry = ::readdir(dir)) {
        if (const auto pid = pidOf(entry->d_name))
            readProcess(::dirfd(dir), entry->d_name, *pid, want, out);
    }
    ::closedir(dir);
    std::sort(out.processes.begin(), out.processes.end(),
              [](const auto& a, const auto& b) { return a.pid < b.pid; });
    return out;
}

} // namespace

std::optional<ProcessIo::IoFields> ProcessIo::parseIo(std::string_view text) {
    IoFields out;
    const std::pair<std::string_view, std::optional<std::uint64_t> IoFields::*> known[] = {
        {"rchar", &IoFields::rchar},
        {"wchar", &IoFields::wchar},
        {"read_bytes", &IoFields::readBytes},
        {"write_bytes", &IoFields::writeBytes},
    };
    bool any = false;
    for (const auto line : TextFields::lines(text)) {
        if (trimmed(line).empty())
            continue;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos)
            return std::nullopt;
        const auto key = trimmed(line.substr(0, colon));
        for (const auto& [name, slot] : known) {
            if (key != name)
                continue;
            std::uint64_t value = 0;
            if ((out.*slot).has_value() ||
                !TextFields::toUint(trimmed(line.substr(colon + 1)), value))
                return std::nullopt;
            out.*slot = value;
            any = true;
        }
    }
    if (!any)
        return std::nullopt;
    return out;
}

std::optional<ProcessIo::StatFields> ProcessIo::parseStat(std::string_view text) {
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses of its own, so it
    // runs from the first '(' to the last ')', and the numbered fields count from there.
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return std::nullopt;
    int pid = 0;
    if (!toInt(trimmed(text.substr(0, open)), pid) || pid <= 0)
        return std::nullopt;
    const auto fields = TextFields::split(trimmed(text.substr(close + 1)));
    // fields[0] is field 3 (state); starttime, field 22, is fields[19].
    if (fields.size() < 20)
        return std::nullopt;
    StatFields out;
    out.comm = std::string(text.substr(open + 1, close - open - 1));
    if (!toInt(fields[1], out.ppid) || !toInt(fields[2], out.pgid) ||
        !TextFields::toUint(fields[19], out.startTicks) || out.ppid < 0 || out.pgid < 0)
        return std::nullopt;
    return out;
}

std::vector<ProcessIoSample> ProcessIo::scan(const std::string& procRoot) {
    return scanCounted(procRoot).processes;
}

ProcessIo::Scan ProcessIo::scanCounted(const std::string& procRoot) {
    auto w = walk(procRoot, [](const StatFields&) { return true; });
    return {std::move(w.processes), w.unreadable};
}

std::optional<ProcessIo::GroupIo> ProcessIo::group(int pgid, const std::string& procRoot) {
    // Kernel threads are in group 0: no caller's group.
    if (pgid <= 0)
        return std::nullopt;
    const auto w = walk(procRoot, [pgid](const StatFields& s) { return s.pgid == pgid; });
    if (w.processes.empty())
        return std::nullopt;
    GroupIo out;
    for (const auto& p : w.processes) {
        out.readBytes += p.readBytes;
        out.writeBytes += p.writeBytes;
        ++out.processes;
    }
    return out;
}

} // namespace tierscope
