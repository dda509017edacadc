#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tierscope {

// One ssh client process: its own process group (a signal meant for tierscope's terminal does
// not reach it, and stopping it takes all it started), stdin and stdout as pipes, stderr kept
// (the last 16 KiB) for the diagnosis. It dies with the thread that started it
// (PR_SET_PDEATHSIG), so a killed tierscope leaves no ssh behind. The destructor ends the
// group: SIGTERM, then SIGKILL.
class SshProcess {
  public:
    explicit SshProcess(const std::vector<std::string>& argv, bool withStdin = true);
    ~SshProcess();
    SshProcess(const SshProcess&) = delete;
    SshProcess& operator=(const SshProcess&) = delete;

    bool started() const { return m_pid > 0; }
    pid_t pid() const { return m_pid; }

    // Up to `max` bytes of stdout within `timeout`: empty with eof() set at end of output,
    // empty without eof() when nothing came in time. Also collects stderr meanwhile.
    std::string read(std::chrono::milliseconds timeout, std::size_t max = 65536);
    bool eof() const { return m_stdout < 0; }
    bool write(const std::string& bytes);
    void closeStdin();

    // The exit status once it ended (ssh's 255, or the remote command's), waiting at most
    // `timeout`; std::nullopt while it runs. -1 when a signal killed it.
    std::optional<int> wait(std::chrono::milliseconds timeout);
    void terminate(); // the whole group, SIGTERM then SIGKILL; reaps it
    const std::string& stderrText();

  private:
    void drainStderr(int waitMs);

    pid_t m_pid = -1;
    int m_stdin = -1;
    int m_stdout = -1;
    int m_stderr = -1;
    std::string m_err;
    std::optional<int> m_status;
};

} // namespace tierscope
