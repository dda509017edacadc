#pragma once

#include "core/Store.h"

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
    static std::string quote(const std::string& field);
};

} // namespace tierscope
