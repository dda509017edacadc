#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <toml++/toml.h>

namespace tierscope {

// A TOML value as JSON, for plan keys whose value is sent as JSON (a workload's extra_body).
class TomlJson {
  public:
    // Absent when the value holds something JSON has no type for (a date or a time), rather
    // than a text the engine would read differently.
    static std::optional<nlohmann::json> convert(const toml::node& node);
};

} // namespace tierscope
