#pragma once

#include <optional>
#include <string>

namespace tierscope {

// A plan's shell command with a placeholder such as {path}: the value goes in quoted for
// /bin/sh, so a path with a space or a quote stays one word and "rm -rf {path}/lmcache" never
// reaches a sibling directory. Inside quotes a quoted value would change meaning (the quotes
// would become part of the text), so a placeholder there is refused, naming the environment
// variable that carries the same value.
class ShellTemplate {
  public:
    // 'text', with each ' written as '\'' : one word for any POSIX shell.
    static std::string quote(const std::string& text);
    // Why `command` cannot take `placeholder` ("{path}") where it stands: it is inside single
    // or double quotes. nullopt when every occurrence stands outside quotes.
    static std::optional<std::string> misplaced(const std::string& command,
                                                const std::string& placeholder,
                                                const std::string& variable);
    // Every unquoted `placeholder` replaced by quote(value). Throws std::invalid_argument with
    // misplaced()'s reason when one stands inside quotes.
    static std::string expand(const std::string& command, const std::string& placeholder,
                              const std::string& value, const std::string& variable);
};

} // namespace tierscope
