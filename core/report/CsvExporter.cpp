#include "core/report/CsvExporter.h"

#include "core/util/UnitFormat.h"

#include <cstdio>
#include <fnmatch.h>
#include <limits>
#include <string_view>

namespace tierscope {

namespace {

// A plain decimal number: [+-] digits [. digits] [e [+-] digits], nothing else.
bool plainNumber(const std::string& s) {
    std::size_t i = 0;
    const auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i;
        return i - start;
    };
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
    std::size_t mantissa = digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0)
        return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            ++i;
        if (digits() == 0)
            return false;
    }
    return i == s.size();
}

} // namespace

std::string CsvExporter::neutralize(const std::string& field) {
    if (field.empty() || std::string_view("=+-@\t\r").find(field[0]) == std::string_view::npos ||
        plainNumber(field))
        return field;
    return "'" + field;
}

std::string CsvExporter::quote(const std::string& raw) {
    std::string field = neutralize(raw); // not const: it is returned, and so moved
    if (field.find_first_of(",\"\n\r") == std::string::npos)
        return field;
    std::string out = "\"";
    for (const char c : field) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

CsvExporter::Result CsvExporter::write(Store& store, std::int64_t sessionId,
                                       const std::string& glob, std::ostream& out) {
    Result result;
    out << "metric,unit,time_utc,t_ns,value\n";
    char number[32];
    for (const auto& m : store.metrics(sessionId)) {
        if (fnmatch(glob.c_str(), m.descriptor.path.c_str(), 0) != 0)
            continue;
        ++result.metrics;
        const std::string prefix = quote(m.descriptor.path) + "," + quote(m.descriptor.unit) + ",";
        for (const Sample& s : store.readRaw(m.id, std::numeric_limits<std::int64_t>::min() / 2,
                                             std::numeric_limits<std::int64_t>::max() / 2)) {
            std::snprintf(number, sizeof number, "%.17g", s.value);
            out << prefix << UnitFormat::isoTime(s.tNs) << ',' << s.tNs << ',' << number << '\n';
            ++result.rows;
        }
    }
    return result;
}

} // namespace tierscope
