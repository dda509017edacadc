#include "core/CsvExporter.h"

#include "core/UnitFormat.h"

#include <cstdio>
#include <fnmatch.h>
#include <limits>

namespace tierscope {

std::string CsvExporter::quote(const std::string& field) {
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
