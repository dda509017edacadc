#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// Thin file access for /proc and /sys; every function returns nullopt or empty instead of
// throwing, because attributes come and go with devices.
class SysfsReader {
  public:
    static std::optional<std::string> readFile(const std::string& path);
    // First line, trailing whitespace removed.
    static std::optional<std::string> readAttr(const std::string& path);
    static std::optional<std::uint64_t> readUint(const std::string& path);
    // The first line of an attribute's text, trailing whitespace removed.
    static std::string firstLine(std::string text);
    // A whole string as an unsigned decimal; nullopt for anything else.
    static std::optional<std::uint64_t> parseUint(std::string_view text);
    static std::vector<std::string> listDir(const std::string& path);
    static bool exists(const std::string& path);
};

} // namespace tierscope
