#include "core/util/SizeParser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace tierscope {

namespace {

std::optional<double> multiplier(std::string unit) {
    for (auto& c : unit)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (unit.empty() || unit == "b")
        return 1.0;
    static const char* kPrefixes = "kmgt";
    const auto at = std::string_view(kPrefixes).find(unit[0]);
    if (at == std::string_view::npos)
        return std::nullopt;
    const double power = static_cast<double>(at + 1);
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "ib")
        return std::pow(1024.0, power);
    if (rest == "b")
        return std::pow(1000.0, power);
    return std::nullopt;
}

} // namespace

std::optional<std::uint64_t> SizeParser::parse(std::string_view text) {
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    std::size_t split = 0;
    while (split < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[split])) || text[split] == '.'))
        ++split;
    if (split == 0)
        return std::nullopt;
    double number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + split, number);
    if (ec != std::errc() || end != text.data() + split)
        return std::nullopt;
    const auto scale = multiplier(std::string(text.substr(split)));
    if (!scale)
        return std::nullopt;
    const double bytes = std::round(number * *scale);
    if (!(bytes >= 0) || bytes > 9.2e18)
        return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
}

} // namespace tierscope
