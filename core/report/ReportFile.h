#pragma once

#include <string>

namespace tierscope {

// Writes a report as the workspace is kept: mode 0600 (reports embed the plan, hosts and
// devices), whole or not at all (a temporary file beside the target, renamed over it), and
// never through a link planted at the temporary name (O_EXCL | O_NOFOLLOW relative to the
// directory's descriptor).
class ReportFile {
  public:
    // Throws std::runtime_error with a one-line reason.
    static void write(const std::string& path, const std::string& text);
};

} // namespace tierscope
