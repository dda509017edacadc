#pragma once

#include <string>
#include <toml++/toml.h>

namespace tierscope {

// How a plan's reader reports a key it cannot take: with the line of the plan it came from.
class PlanError {
  public:
    [[noreturn]] static void at(const toml::node& node, const std::string& what);
};

} // namespace tierscope
