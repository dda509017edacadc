#pragma once

#include <functional>
#include <string>

namespace tierscope {

// Writes every file tierscope outputs (reports, exports, charts, result JSON) as the workspace
// is kept: mode 0600 (reports embed the plan, hosts and devices), whole or not at all (a
// temporary file beside the target, renamed over it), and never through a link planted at the
// temporary name (O_EXCL | O_NOFOLLOW relative to the directory's descriptor); a link planted
// at the target's name is replaced, never followed.
class ReportFile {
  public:
    // Throws std::runtime_error with a one-line reason.
    static void write(const std::string& path, const std::string& text);
    // The same for output produced in pieces: `fill` writes to the temporary file's descriptor
    // and returns false (errno set) when it could not.
    static void write(const std::string& path, const std::function<bool(int fd)>& fill);
};

} // namespace tierscope
