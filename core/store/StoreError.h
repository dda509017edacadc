#pragma once

#include <stdexcept>
#include <string>

namespace tierscope {

// A store failure the user can act on. Each code maps to a documented process exit code
// (README "Exit codes"), so scripts can tell a foreign file from a full disk.
class StoreError : public std::runtime_error {
  public:
    enum class Code {
        NotADatabase = 3, // not SQLite, or SQLite but not a tierscope workspace
        NewerSchema = 4,  // written by a newer tierscope
        CannotWrite = 5,  // read-only file or directory, no permission, disk full
        NotFound = 6,     // session or metric id that does not exist
        Io = 7,           // any other SQLite failure
    };

    StoreError(Code code, const std::string& message) : std::runtime_error(message), m_code(code) {}

    Code code() const { return m_code; }
    int exitCode() const { return static_cast<int>(m_code); }

  private:
    Code m_code;
};

} // namespace tierscope
