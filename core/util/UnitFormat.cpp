#include "core/util/UnitFormat.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace tierscope {

namespace {

std::string scaled(double value, const char* unit) {
    static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int i = 0;
    double v = value;
    while (std::fabs(v) >= 1000.0 && i < 5) {
        v /= 1000.0;
        ++i;
    }
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, i == 0 ? "%.0f %s%s" : "%.1f %s%s", v, prefixes[i], unit);
    return buffer;
}

std::tm utc(std::int64_t tNs) {
    const std::time_t seconds = static_cast<std::time_t>(tNs / 1'000'000'000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    return tm;
}

} // namespace

std::string UnitFormat::bytesPerSecond(double value) {
    return scaled(value, "B/s");
}

std::string UnitFormat::bytes(double value) {
    return scaled(value, "B");
}

std::string UnitFormat::kpi(double v, const std::string& unit) {
    char text[64];
    const double magnitude = std::abs(v);
    if (unit == "s") {
        std::snprintf(text, sizeof text, magnitude < 1.0 ? "%.2f ms" : "%.3f s",
                      magnitude < 1.0 ? v * 1e3 : v);
        return text;
    }
    if (unit == "bytes")
        return bytes(v);
    std::snprintf(text, sizeof text,
                  magnitude >= 1000  ? "%.0f"
                  : magnitude >= 100 ? "%.1f"
                                     : "%.3g",
                  v);
    return text + (" " + unit);
}

std::string UnitFormat::seconds(double value) {
    char buffer[64];
    if (value < 120)
        std::snprintf(buffer, sizeof buffer, "%.1f s", value);
    else if (value < 7200)
        std::snprintf(buffer, sizeof buffer, "%.1f min", value / 60);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f h", value / 3600);
    return buffer;
}

std::string UnitFormat::count(std::int64_t value) {
    std::string digits = std::to_string(value < 0 ? -value : value);
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
        digits.insert(static_cast<std::size_t>(i), ",");
    return value < 0 ? "-" + digits : digits;
}

std::string UnitFormat::utcTime(std::int64_t tNs) {
    const std::tm tm = utc(tNs);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%SZ", &tm);
    return buffer;
}

std::string UnitFormat::isoTime(std::int64_t tNs) {
    const std::tm tm = utc(tNs);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    const long long frac = ((tNs % 1'000'000'000) + 1'000'000'000) % 1'000'000'000;
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%s.%09lldZ", date, frac);
    return buffer;
}

} // namespace tierscope
