#pragma once

#include "remote/SshTarget.h"

#include <chrono>
#include <string>
#include <vector>

namespace tierscope {

// The argument vectors tierscope hands to the user's ssh client. Pure, so the options that keep
// a session safe and bounded are tested: BatchMode (never a password or passphrase prompt),
// ConnectTimeout and keep-alives (a dead server is noticed), no forwardings, one master
// connection in a private directory reused by every command, and "--" before the host, so
// nothing from the target is read as an option.
class SshCommandLine {
  public:
    struct Options {
        std::string program = "ssh";
        std::string configFile; // -F, when set (tests, or TIERSCOPE_SSH_CONFIG)
        std::string controlPath;
        std::chrono::seconds connectTimeout{10};
        std::string remoteBinary = "tierscope";
    };

    SshCommandLine(SshTarget target, Options options);

    // The master: authenticates once and holds the connection for the commands.
    std::vector<std::string> master() const;
    // `ssh -O check|exit`: asks the master whether it is up, or to end.
    std::vector<std::string> control(const std::string& operation) const;
    // `tierscope ARGS` on the server through the master, each argument quoted for the remote
    // shell.
    std::vector<std::string> tierscope(const std::vector<std::string>& args) const;

    const SshTarget& target() const { return m_target; }
    const Options& options() const { return m_options; }

    // 'text' for a POSIX shell: the remote sshd hands the command line to the user's shell.
    static std::string shellQuote(const std::string& text);

  private:
    std::vector<std::string> common() const;
    void addDestination(std::vector<std::string>& argv) const;

    SshTarget m_target;
    Options m_options;
};

} // namespace tierscope
