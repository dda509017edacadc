#pragma once

#include <functional>
#include <string>

namespace tierscope {

// Runs a call with file descriptor 2 pointed at an in-memory file and returns what was written
// there: vendor libraries print diagnostics on stderr that must not reach the user's terminal
// unfiltered. Meant for one-off calls at start-up; other threads' stderr in that window is
// captured too.
class StderrCapture {
  public:
    static std::string run(const std::function<void()>& call);
    // Everything written to fd (a memfd) from its start, capped at 64 KiB.
    static std::string readAll(int fd);
    // Last non-empty line of captured text, trimmed, for one-line reasons.
    static std::string lastLine(const std::string& text);
};

} // namespace tierscope
