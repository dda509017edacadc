#include "collectors/storage/BlockDeviceNames.h"

#include <cctype>

namespace tierscope {

namespace {

// Consumes one or more digits at pos; false when there are none.
bool digits(std::string_view s, std::size_t& pos) {
    const std::size_t start = pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
        ++pos;
    return pos > start;
}

} // namespace

bool BlockDeviceNames::isIgnored(std::string_view name) {
    return name.starts_with("loop") || name.starts_with("ram") || name.starts_with("zram");
}

std::optional<std::string> BlockDeviceNames::multipathHead(std::string_view name) {
    if (!name.starts_with("nvme"))
        return std::nullopt;
    std::size_t pos = 4;
    const std::size_t subsysStart = pos;
    if (!digits(name, pos) || pos >= name.size() || name[pos] != 'c')
        return std::nullopt;
    const std::string_view subsys = name.substr(subsysStart, pos - subsysStart);
    ++pos;
    if (!digits(name, pos) || pos >= name.size() || name[pos] != 'n')
        return std::nullopt;
    const std::size_t nsStart = ++pos;
    if (!digits(name, pos) || pos != name.size())
        return std::nullopt;
    return "nvme" + std::string(subsys) + "n" + std::string(name.substr(nsStart));
}

std::optional<std::string> BlockDeviceNames::stackedKind(std::string_view name) {
    // Numbered names only, so that a disk driver's name that merely starts alike is not taken.
    auto numbered = [&](std::string_view prefix) {
        std::size_t pos = prefix.size();
        return name.starts_with(prefix) && digits(name, pos) && pos == name.size();
    };
    if (name.starts_with("dm-"))
        return "dm";
    if (name.starts_with("md"))
        return "md";
    if (numbered("bcache"))
        return "bcache";
    if (numbered("drbd"))
        return "drbd";
    if (numbered("zd"))
        return "zvol";
    return std::nullopt;
}

bool BlockDeviceNames::countsInTotal(std::string_view name) {
    return !multipathHead(name) && !stackedKind(name);
}

} // namespace tierscope
