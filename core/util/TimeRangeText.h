#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// A time range inside a session as a person types it: "10s..40s", "..40s" (from the start),
// "10s.." (to the end), each end a duration since the session's start ("90", "1.5m", "250ms",
// "2m30s"). The one parser of `analyze --range`, `gui --range` and the links the GUI copies.
class TimeRangeText {
  public:
    struct Range {
        std::optional<std::int64_t> fromNs; // absent: the session's start
        std::optional<std::int64_t> toNs;   // absent: its end
        bool operator==(const Range&) const = default;
    };

    // nullopt when malformed, with no end at all (".."), or empty (from at or after to).
    static std::optional<Range> parse(std::string_view text);
    // One offset: a duration, or several added up ("2m30s", "1h5m"), each as DurationParser
    // reads it; a bare number (seconds) only on its own ("1m30" is a typo, not 1m30s).
    static std::optional<std::int64_t> parseOffset(std::string_view text);
    // "10s..40.5s": the ends in seconds to the millisecond, an absent end left empty.
    static std::string format(const Range& range);
};

} // namespace tierscope
