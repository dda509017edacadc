#include "core/util/ShellTemplate.h"

#include <stdexcept>

namespace tierscope {

namespace {

enum class Quote { None, Single, Double };

// Walks `command` as /bin/sh reads quotes and backslashes; `at` is called at each position
// with the quoting in force there.
template <typename At> void walk(const std::string& command, At at) {
    Quote q = Quote::None;
    for (std::size_t i = 0; i < command.size(); ++i) {
        if (!at(i, q))
            return;
        const char c = command[i];
        if (q == Quote::Single) {
            if (c == '\'')
                q = Quote::None;
        } else if (c == '\\') {
            ++i; // the next character is taken literally
        } else if (q == Quote::Double) {
            if (c == '"')
                q = Quote::None;
        } else if (c == '\'') {
            q = Quote::Single;
        } else if (c == '"') {
            q = Quote::Double;
        }
    }
}

} // namespace

std::string ShellTemplate::quote(const std::string& text) {
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::optional<std::string> ShellTemplate::misplaced(const std::string& command,
                                                    const std::string& placeholder,
                                                    const std::string& variable) {
    std::optional<std::string> why;
    walk(command, [&](std::size_t i, Quote q) {
        if (q == Quote::None || command.compare(i, placeholder.size(), placeholder) != 0)
            return true;
        why = placeholder + " stands inside " + (q == Quote::Single ? "single" : "double") +
              " quotes in \"" + command +
              "\", where its quoted value would change meaning: write " +
              (q == Quote::Single ? "it outside the quotes" : "\"$" + variable + "\"") +
              " there instead";
        return false;
    });
    return why;
}

std::string ShellTemplate::expand(const std::string& command, const std::string& placeholder,
                                  const std::string& value, const std::string& variable) {
    if (const auto why = misplaced(command, placeholder, variable))
        throw std::invalid_argument(*why);
    std::string out;
    std::size_t copied = 0;
    walk(command, [&](std::size_t i, Quote q) {
        if (q == Quote::None && i >= copied &&
            command.compare(i, placeholder.size(), placeholder) == 0) {
            out.append(command, copied, i - copied);
            out += quote(value);
            copied = i + placeholder.size();
        }
        return true;
    });
    out.append(command, copied, std::string::npos);
    return out;
}

} // namespace tierscope
