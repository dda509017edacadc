#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// bash and zsh completion scripts generated from the app's own commands and options, so a
// new option completes without anyone editing a script. The build writes them with
// `tierscope generate bash|zsh` and `cmake --install` installs them.
class ShellCompletion {
  public:
    static std::string bash(const CLI::App& app);
    static std::string zsh(const CLI::App& app);
};

} // namespace tierscope
