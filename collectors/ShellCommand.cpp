#include "collectors/ShellCommand.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tierscope {

namespace {

constexpr std::size_t kKeep = 64 * 1024;

void keepTail(std::string& out, const char* data, std::size_t n) {
    out.append(data, n);
    if (out.size() > kKeep)
        out.erase(0, out.size() - kKeep);
}

} // namespace

std::string ShellCommand::Result::describe() const {
    if (timedOut)
        return "timed out";
    if (exitCode < 0)
        return "killed by a signal";
    return "exit " + std::to_string(exitCode);
}

ShellCommand::Result ShellCommand::run(const std::string& text,
                                       const std::map<std::string, std::string>& env,
                                       std::chrono::milliseconds timeout) {
    Result result;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        result.output = "cannot create a pipe";
        return result;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        for (const auto& [k, v] : env)
            setenv(k.c_str(), v.c_str(), 1);
        execl("/bin/sh", "sh", "-c", text.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        result.output = "cannot fork";
        return result;
    }
    setpgid(pid, pid);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            result.timedOut = true;
            kill(-pid, SIGTERM);
            usleep(200000);
            kill(-pid, SIGKILL);
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 200)));
        if (ready > 0) {
            const ssize_t n = read(fds[0], buffer, sizeof buffer);
            if (n > 0) {
                keepTail(result.output, buffer, static_cast<std::size_t>(n));
                continue;
            }
            if (n == 0 || errno != EINTR)
                break; // every writer closed: the command (and its children) are done
        }
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            // Drain what is left without waiting for background children holding the pipe.
            while (poll(&p, 1, 0) > 0) {
                const ssize_t n = read(fds[0], buffer, sizeof buffer);
                if (n <= 0)
                    break;
                keepTail(result.output, buffer, static_cast<std::size_t>(n));
            }
            close(fds[0]);
            result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            return result;
        }
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!result.timedOut)
        result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

} // namespace tierscope
