#include "remote/SshDiagnosis.h"

#include "core/util/Utf8.h"

#include <vector>

namespace tierscope {

namespace {

bool has(std::string_view text, std::string_view needle) {
    return text.find(needle) != std::string_view::npos;
}

std::string lastLine(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        auto line = text.substr(start, end - start);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        // ssh's own chatter about the master says nothing about the failure
        if (!line.empty() && !has(line, "Warning: Permanently added"))
            lines.push_back(line);
        start = end + 1;
    }
    return lines.empty() ? std::string() : std::string(lines.back());
}

std::string where(const SshTarget& t) {
    return t.host + (t.port ? ":" + std::to_string(*t.port) : std::string());
}

} // namespace

std::string SshDiagnosis::printable(std::string_view text, std::size_t maxLength) {
    std::string out = Utf8::lossy(text.substr(0, maxLength));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return out;
}

SshDiagnosis::Result SshDiagnosis::classify(const SshTarget& target, int exitCode,
                                            std::string_view err, const std::string& remoteBinary) {
    const std::string host = where(target);
    const std::string said = printable(lastLine(err));
    if (exitCode == 255) {
        if (has(err, "Could not resolve hostname"))
            return {Kind::Unreachable, "cannot reach " + host + ": the host name does not resolve"};
        if (has(err, "Connection refused"))
            return {Kind::Unreachable,
                    "cannot reach " + host + ": connection refused (no SSH server on that port?)"};
        if (has(err, "timed out"))
            return {Kind::Unreachable, "cannot reach " + host + ": the connection timed out"};
        if (has(err, "No route to host") || has(err, "Network is unreachable"))
            return {Kind::Unreachable, "cannot reach " + host + ": no route to the host"};
        if (has(err, "Permission denied") || has(err, "Too many authentication failures"))
            return {Kind::AuthRefused,
                    host + " refused the login" +
                        (target.user.empty() ? std::string() : " of " + target.user) +
                        ": no key of yours (ssh keys, agent, ~/.ssh/config) is accepted there; "
                        "tierscope never asks for a password (check with: ssh " +
                        (target.port ? "-p " + std::to_string(*target.port) + " " : "") +
                        (target.user.empty() ? "" : target.user + "@") + target.host + ")"};
        if (has(err, "Host key verification failed") ||
            has(err, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
            return {Kind::HostKey, "the host key of " + host +
                                       " is unknown or has changed; check and accept it with "
                                       "a plain `ssh` to the host first"};
        if (has(err, "Connection closed") || has(err, "Connection reset") ||
            has(err, "closed by remote host") || has(err, "Broken pipe") ||
            has(err, "kex_exchange_identification") || has(err, "Timeout, server") ||
            has(err, "not responding"))
            return {Kind::Lost, "the connection to " + host + " was lost" +
                                    (said.empty() ? std::string() : " (" + said + ")")};
        return {Kind::Other,
                "ssh to " + host + " failed" + (said.empty() ? std::string() : ": " + said)};
    }
    if (exitCode == 127 || exitCode == 126)
        return {Kind::MissingBinary,
                "tierscope is not installed on " + target.host + " (\"" +
                    printable(remoteBinary, 120) +
                    "\" not found or not executable for a non-interactive shell; install the "
                    "same version there, or name its path in TIERSCOPE_REMOTE_BINARY)"};
    if (has(err, "The following arguments were not expected") ||
        has(err, "The following argument was not expected") || has(err, "A subcommand is required"))
        return {Kind::Incompatible,
                "the tierscope on " + target.host +
                    " is too old for remote use (it lacks this command); install the same "
                    "version as here"};
    return {Kind::Other, "tierscope on " + target.host + " failed (exit " +
                             std::to_string(exitCode) + ")" +
                             (said.empty() ? std::string() : ": " + said)};
}

} // namespace tierscope
