#include "core/util/TimeSpec.h"

#include "core/util/DurationParser.h"

#include <cstdio>
#include <ctime>
#include <string>

namespace tierscope {

std::optional<double> TimeSpec::parse(std::string_view text, double nowS) {
    if (text == "now")
        return nowS;
    if (!text.empty() && text.front() == '-') {
        const auto ago = DurationParser::parse(text.substr(1));
        if (!ago)
            return std::nullopt;
        return nowS - std::chrono::duration<double>(*ago).count();
    }
    const std::string s(text);
    if (s.find('T') == std::string::npos) {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || v < 0)
            return std::nullopt;
        return v;
    }
    std::tm tm{};
    double seconds = 0;
    char zone = 0;
    int used = 0;
    if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                    &tm.tm_hour, &tm.tm_min, &seconds, &zone, &used) != 7 ||
        zone != 'Z' || used != static_cast<int>(s.size()) || seconds < 0 || seconds >= 61)
        return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_sec = 0;
    return static_cast<double>(timegm(&tm)) + seconds;
}

} // namespace tierscope
