#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// tierscope(1) in roff, generated from the app's own commands, options and help texts.
class ManPage {
  public:
    static std::string render(const CLI::App& app, const std::string& version);
};

} // namespace tierscope
