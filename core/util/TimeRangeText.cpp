#include "core/util/TimeRangeText.h"

#include "core/util/DurationParser.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace tierscope {

namespace {

bool isNumberChar(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
}

std::optional<std::optional<std::int64_t>> end(std::string_view text) {
    if (text.empty())
        return std::optional<std::int64_t>();
    const auto ns = TimeRangeText::parseOffset(text);
    if (!ns)
        return std::nullopt;
    return std::optional<std::int64_t>(*ns);
}

// Milliseconds, so a link's range reads as typed: "12.5s", not "12.500000000s".
std::string seconds(std::int64_t ns) {
    const std::int64_t ms = (ns + (ns >= 0 ? 500'000 : -500'000)) / 1'000'000;
    const std::lldiv_t split = std::lldiv(std::llabs(ms), 1000);
    std::string out = (ms < 0 ? "-" : "") + std::to_string(split.quot);
    if (split.rem != 0) {
        char fraction[8];
        std::snprintf(fraction, sizeof fraction, ".%03lld", split.rem);
        std::string digits(fraction);
        while (digits.back() == '0')
            digits.pop_back();
        out += digits;
    }
    return out + "s";
}

} // namespace

std::optional<std::int64_t> TimeRangeText::parseOffset(std::string_view text) {
    if (text.empty())
        return std::nullopt;
    std::int64_t total = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t stop = at;
        while (stop < text.size() && isNumberChar(text[stop]))
            ++stop;
        while (stop < text.size() && std::isalpha(static_cast<unsigned char>(text[stop])))
            ++stop;
        const std::string_view piece = text.substr(at, stop - at);
        const bool bare = !piece.empty() && isNumberChar(piece.back());
        if (piece.empty() || (bare && piece.size() != text.size()))
            return std::nullopt;
        const auto part = DurationParser::parse(piece);
        if (!part)
            return std::nullopt;
        total += part->count();
        at = stop;
    }
    return total;
}

std::optional<TimeRangeText::Range> TimeRangeText::parse(std::string_view text) {
    const auto dots = text.find("..");
    if (dots == std::string_view::npos || text.find("..", dots + 2) != std::string_view::npos)
        return std::nullopt;
    const auto from = end(text.substr(0, dots));
    const auto to = end(text.substr(dots + 2));
    if (!from || !to || (!*from && !*to))
        return std::nullopt;
    if (*from && *to && **from >= **to)
        return std::nullopt;
    return Range{*from, *to};
}

std::string TimeRangeText::format(const Range& range) {
    return (range.fromNs ? seconds(*range.fromNs) : "") + ".." +
           (range.toNs ? seconds(*range.toNs) : "");
}

} // namespace tierscope
