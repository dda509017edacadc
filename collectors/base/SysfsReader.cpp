#include "collectors/base/SysfsReader.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

std::optional<std::string> SysfsReader::readFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string out;
    char buffer[16384];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(fd);
            if (n < 0)
                return std::nullopt;
            return out;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
}

std::optional<std::string> SysfsReader::readAttr(const std::string& path) {
    auto text = readFile(path);
    if (!text)
        return std::nullopt;
    return firstLine(std::move(*text));
}

std::string SysfsReader::firstLine(std::string text) {
    const auto newline = text.find('\n');
    if (newline != std::string::npos)
        text.resize(newline);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.pop_back();
    return text;
}

std::optional<std::uint64_t> SysfsReader::readUint(const std::string& path) {
    const auto text = readAttr(path);
    return text ? parseUint(*text) : std::nullopt;
}

std::optional<std::uint64_t> SysfsReader::parseUint(std::string_view text) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::vector<std::string> SysfsReader::listDir(const std::string& path) {
    std::vector<std::string> names;
    DIR* dir = ::opendir(path.c_str());
    if (!dir)
        return names;
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..")
            names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

bool SysfsReader::exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

} // namespace tierscope
