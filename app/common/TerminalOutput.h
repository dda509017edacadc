#pragma once

#include <string>
#include <string_view>

namespace tierscope {

// Text that someone else chose (plan and session labels, manifest names, engine and setup
// logs, a server's lines) on its way to stdout or stderr: cleaned by TerminalText when that is
// a terminal, unchanged when it is a pipe or a file (there it is data, and exact).
class TerminalOutput {
  public:
    static std::string shown(int fd, std::string_view text);
};

} // namespace tierscope
