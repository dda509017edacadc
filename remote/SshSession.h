#pragma once

#include "remote/SshCommandLine.h"
#include "remote/SshDiagnosis.h"
#include "remote/SshProcess.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The connection to one server: a master ssh connection (authenticated once, in a private
// 0700 directory holding its control socket) that every tierscope command on the server then
// reuses. Nothing listens on the network; no password is asked for (BatchMode). Environment:
// TIERSCOPE_SSH (the ssh program), TIERSCOPE_SSH_CONFIG (an ssh_config for -F) and
// TIERSCOPE_REMOTE_BINARY (tierscope's path on the server, default "tierscope").
class SshSession {
  public:
    struct Options {
        std::chrono::seconds connectTimeout{10};
        // Read while connecting: set (Ctrl-C), the attempt ends within 50 ms.
        const std::atomic<bool>* cancel = nullptr;
    };
    struct Captured {
        int exitCode = -1;
        bool timedOut = false;
        std::string out;
        std::string err;
    };

    explicit SshSession(SshTarget target) : SshSession(std::move(target), Options()) {}
    SshSession(SshTarget target, Options options);
    ~SshSession(); // ends the master and removes the directory
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    // Opens the master; on failure, the one-line reason (unreachable, key refused, ...).
    std::optional<SshDiagnosis::Result> connect();
    bool connected();
    // Ends the master (and with it every command over it): what a dropped network does.
    void disconnect();

    // `tierscope ARGS` on the server, streaming.
    std::unique_ptr<SshProcess> start(const std::vector<std::string>& args, bool withStdin = true);
    // `tierscope ARGS` on the server with `input` on its stdin, collected; killed at `timeout`.
    Captured run(const std::vector<std::string>& args, const std::string& input,
                 std::chrono::milliseconds timeout, std::size_t maxOutput = 1 << 20);
    SshDiagnosis::Result diagnose(int exitCode, const std::string& err) const;

    const SshTarget& target() const { return m_line.target(); }
    const SshCommandLine& commandLine() const { return m_line; }

  private:
    static SshCommandLine::Options lineOptions(const std::string& controlPath, Options options);

    std::string m_dir;
    SshCommandLine m_line;
    Options m_options;
    std::unique_ptr<SshProcess> m_master;
};

} // namespace tierscope
