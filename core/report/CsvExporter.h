#pragma once

#include "core/store/Store.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace tierscope {

// Long-format CSV of a session's samples: one row per sample, every metric, so nothing is
// resampled or lost: metric,unit,time_utc,t_ns,value.
class CsvExporter {
  public:
    struct Result {
        std::int64_t metrics = 0;
        std::int64_t rows = 0;
    };
    // glob filters metric paths (fnmatch syntax, "*" for all).
    static Result write(Store& store, std::int64_t sessionId, const std::string& glob,
                        std::ostream& out);
    // A text cell, neutralized, then quoted as RFC 4180 asks (when it holds , " CR or LF).
    static std::string quote(const std::string& field);
    // CSV injection (OWASP): a spreadsheet reads a cell that starts with = + - @ tab or CR as a
    // formula, so such a text cell gets a leading single quote. A cell that is a plain decimal
    // number ("-1.5", "+2e3") cannot be a formula and is left as it is, so negative numbers
    // keep their value. Numeric columns never pass through here.
    static std::string neutralize(const std::string& field);
};

} // namespace tierscope
