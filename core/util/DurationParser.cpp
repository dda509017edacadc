#include "core/util/DurationParser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace tierscope {

std::optional<std::chrono::nanoseconds> DurationParser::parse(std::string_view text) {
    std::size_t split = 0;
    while (split < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.'))
        ++split;
    if (split == 0)
        return std::nullopt;
    double number = 0;
    const std::string digits(text.substr(0, split));
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (ec != std::errc() || end != digits.data() + digits.size() || !std::isfinite(number))
        return std::nullopt;
    const std::string_view unit = text.substr(split);
    double scale = 0;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "m" || unit == "min")
        scale = 60e9;
    else if (unit == "h")
        scale = 3600e9;
    else
        return std::nullopt;
    const double ns = number * scale;
    if (ns > 9.0e18)
        return std::nullopt;
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(ns)));
}

} // namespace tierscope
