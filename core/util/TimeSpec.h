#pragma once

#include <optional>
#include <string_view>

namespace tierscope {

// A point in time as a user types it: "now", "-15m" (before now), unix seconds
// ("1764500000.5") or RFC 3339 UTC ("2026-11-30T11:00:00Z", fractional seconds allowed).
class TimeSpec {
  public:
    static std::optional<double> parse(std::string_view text, double nowS);
};

} // namespace tierscope
