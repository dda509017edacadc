#pragma once

#include <stdexcept>
#include <string>

namespace tierscope {

// A storage workload cannot start or could not finish. `kind` lets the CLI pick an exit code
// and lets tests tell a missing path from a full disk without matching message text.
class WorkloadError : public std::runtime_error {
  public:
    enum class Kind { NotFound, Permission, NoSpace, Refused, Io };
    WorkloadError(Kind kind, const std::string& message)
        : std::runtime_error(message), m_kind(kind) {}
    Kind kind() const { return m_kind; }

    // Maps an errno from an operation on `path` to a kind and a sentence.
    static WorkloadError fromErrno(int error, const std::string& what, const std::string& path);

  private:
    Kind m_kind;
};

} // namespace tierscope
