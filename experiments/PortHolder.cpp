#include "experiments/PortHolder.h"

#include "collectors/base/SysfsReader.h"
#include "collectors/host/ProcessIo.h"

#include <charconv>
#include <dirent.h>
#include <sstream>
#include <unistd.h>

namespace tierscope {

namespace {

std::vector<std::uint64_t> allListeningInodes(int port) {
    auto out = PortHolder::listeningInodes(
        SysfsReader::readFile("/proc/net/tcp").value_or(std::string()), port);
    const auto v6 = PortHolder::listeningInodes(
        SysfsReader::readFile("/proc/net/tcp6").value_or(std::string()), port);
    out.insert(out.end(), v6.begin(), v6.end());
    return out;
}

std::string cmdlineOf(int pid) {
    std::string text =
        SysfsReader::readFile("/proc/" + std::to_string(pid) + "/cmdline").value_or(std::string());
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    for (char& c : text)
        if (c == '\0')
            c = ' ';
    return text;
}

} // namespace

std::vector<std::uint64_t> PortHolder::listeningInodes(std::string_view text, int port) {
    // Fields: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    // local_address is HEXIP:HEXPORT; st 0A is TCP_LISTEN.
    std::vector<std::uint64_t> out;
    std::istringstream in{std::string(text)};
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
        if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
              timeout >> inode))
            continue;
        const auto colon = local.rfind(':');
        if (colon == std::string::npos || state != "0A")
            continue;
        int localPort = 0;
        const char* first = local.data() + colon + 1;
        const char* last = local.data() + local.size();
        if (std::from_chars(first, last, localPort, 16).ptr != last || localPort != port)
            continue;
        std::uint64_t value = 0;
        if (std::from_chars(inode.data(), inode.data() + inode.size(), value).ptr ==
            inode.data() + inode.size())
            out.push_back(value);
    }
    return out;
}

std::optional<int> PortHolder::localPort(const std::string& url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return std::nullopt;
    const bool https = url.compare(0, scheme, "https") == 0;
    std::string authority = url.substr(scheme + 3);
    authority = authority.substr(0, authority.find('/'));
    std::string host = authority;
    std::string port;
    if (!authority.empty() && authority.front() == '[') { // [::1]:8000
        const auto close = authority.find(']');
        if (close == std::string::npos)
            return std::nullopt;
        host = authority.substr(1, close - 1);
        if (close + 1 < authority.size() && authority[close + 1] == ':')
            port = authority.substr(close + 2);
    } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    if (host != "127.0.0.1" && host != "localhost" && host != "::1" && host != "0.0.0.0")
        return std::nullopt;
    if (port.empty())
        return https ? 443 : 80;
    int value = 0;
    if (std::from_chars(port.data(), port.data() + port.size(), value).ptr !=
            port.data() + port.size() ||
        value <= 0 || value > 65535)
        return std::nullopt;
    return value;
}

bool PortHolder::listening(int port) {
    return !allListeningInodes(port).empty();
}

std::optional<PortHolder::Holder> PortHolder::holder(int port) {
    const auto inodes = allListeningInodes(port);
    if (inodes.empty())
        return std::nullopt;
    DIR* proc = opendir("/proc");
    if (!proc)
        return std::nullopt;
    // A socket tierscope inherited is also open in the process that opened it: name that one,
    // and tierscope only when nobody else holds it.
    std::optional<Holder> found, self;
    while (!found) {
        const dirent* e = readdir(proc);
        if (!e)
            break;
        int pid = 0;
        const std::string_view name(e->d_name);
        if (std::from_chars(name.data(), name.data() + name.size(), pid).ptr !=
            name.data() + name.size())
            continue;
        const std::string fdDir = "/proc/" + std::string(name) + "/fd";
        DIR* fds = opendir(fdDir.c_str()); // fails for other users' processes unless root
        if (!fds)
            continue;
        while (const dirent* f = readdir(fds)) {
            char target[64];
            const std::string link = fdDir + "/" + f->d_name;
            const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            for (const auto inode : inodes)
                if (std::string_view(target) == "socket:[" + std::to_string(inode) + "]")
                    (pid == getpid() ? self : found) = Holder{pid, cmdlineOf(pid)};
            if (found)
                break;
        }
        closedir(fds);
    }
    closedir(proc);
    return found ? found : self;
}

std::string PortHolder::describe(int port) {
    const std::string where = "127.0.0.1:" + std::to_string(port);
    if (const auto h = holder(port))
        return where + " is already in use by pid " + std::to_string(h->pid) + " (" + h->cmdline +
               ")";
    return where +
           " is already in use by a process that cannot be identified (not visible in /proc to "
           "this user)";
}

std::optional<int> PortHolder::processGroup(const std::string& url) {
    const auto port = localPort(url);
    if (!port)
        return std::nullopt;
    const auto h = holder(*port);
    if (!h)
        return std::nullopt;
    const auto fields = ProcessIo::parseStat(
        SysfsReader::readFile("/proc/" + std::to_string(h->pid) + "/stat").value_or(""));
    if (!fields || fields->pgid <= 0)
        return std::nullopt;
    return fields->pgid;
}

} // namespace tierscope
