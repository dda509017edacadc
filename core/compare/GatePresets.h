#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// Named sets of gates (resources/gates.toml, compiled in), e.g. "G3": the joint-test gate,
// TTFT -25 % or better and throughput +29 % or better.
class GatePresets {
  public:
    // Throws std::runtime_error on malformed TOML.
    static std::map<std::string, std::vector<std::string>> parse(std::string_view toml);
    static const std::map<std::string, std::vector<std::string>>& builtin();
};

} // namespace tierscope
