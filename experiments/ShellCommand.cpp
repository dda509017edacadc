#include "experiments/ShellCommand.h"

#include "experiments/ChildGroups.h"
#include "core/util/Utf8.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace tierscope {

namespace {

constexpr std::size_t kKeep = 64 * 1024;

struct Tail {
    std::string bytes;
    bool cut = false;
    void keep(const char* data, std::size_t n) {
        bytes.append(data, n);
        if (bytes.size() > kKeep) {
            bytes.erase(0, bytes.size() - kKeep);
            cut = true;
        }
    }
    // Text to store: a cut may land inside a character, and a command may print any bytes.
    std::string text() const {
        std::size_t start = 0;
        while (cut && start < 3 && start < bytes.size() &&
               (static_cast<unsigned char>(bytes[start]) & 0xC0) == 0x80)
            ++start;
        return Utf8::lossy(std::string_view(bytes).substr(start));
    }
};

// Built before fork: between fork and exec only async-signal-safe calls are allowed, and
// setenv may allocate under a lock another thread holds.
std::vector<std::string> environmentWith(const std::map<std::string, std::string>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view entry(*e);
        if (extra.count(std::string(entry.substr(0, entry.find('=')))) == 0)
            out.emplace_back(entry);
    }
    for (const auto& [k, v] : extra)
        out.push_back(k + "=" + v);
    return out;
}

// The guard: tierscope's child and the leader of the command's process group, holding one end
// of a socket whose other end only tierscope holds. When tierscope ends without saying "done"
// (SIGKILL, the OOM killer, a crash), the socket reaches end of file and the guard kills the
// group, so a setup's process tree never outlives the tierscope that started it. Unlike
// PR_SET_PDEATHSIG, which reaches only the shell and fires when the forking thread ends, this
// takes the shell's children too. It runs between fork and _exit: system calls only.
[[noreturn]] void guard(int lifeline) {
    dup2(lifeline, 3);
    if (close_range(4, ~0U, 0) != 0)
        for (int fd = 4; fd < 1024; ++fd)
            close(fd);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > 3)
            close(null);
    }
    char said = 0;
    ssize_t n;
    do
        n = read(3, &said, 1);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        kill(0, SIGKILL);
    _exit(0);
}

// SIGTERM, 200 ms to go, then SIGKILL, to the whole group. The guard, whose pid is the group's
// id, is reaped only after that, so the id cannot be reused before the SIGKILL.
void stopGroup(pid_t group, pid_t shell) {
    kill(-group, SIGTERM);
    for (int i = 0; i < 20; ++i) {
        siginfo_t info{};
        if (waitid(P_PID, static_cast<id_t>(shell), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == shell)
            break;
        usleep(10000);
    }
    kill(-group, SIGKILL);
    kill(shell, SIGKILL);
}

} // namespace

std::string ShellCommand::Result::describe() const {
    if (cancelled)
        return "cancelled";
    if (timedOut)
        return "timed out";
    if (exitCode < 0)
        return "killed by a signal";
    return "exit " + std::to_string(exitCode);
}

ShellCommand::Result ShellCommand::run(const std::string& text,
                                       const std::map<std::string, std::string>& env,
                                       std::chrono::milliseconds timeout,
                                       const std::atomic<bool>* cancel) {
    Result result;
    const std::vector<std::string> environment = environmentWith(env);
    std::vector<char*> envp;
    for (const auto& e : environment)
        envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const char* argv[] = {"sh", "-c", text.c_str(), nullptr};

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        result.output = "cannot create a pipe";
        return result;
    }
    int lifeline[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, lifeline) != 0) {
        close(fds[0]);
        close(fds[1]);
        result.output = "cannot create a socket";
        return result;
    }
    // The guard first, so that there is no moment when the shell runs unguarded.
    const pid_t group = fork();
    if (group == 0) {
        setpgid(0, 0);
        guard(lifeline[1]);
    }
    close(lifeline[1]);
    if (group < 0) {
        close(fds[0]);
        close(fds[1]);
        close(lifeline[0]);
        result.output = "cannot fork";
        return result;
    }
    setpgid(group, group);
    ChildGroups::add(group);
    const pid_t pid = fork();
    if (pid == 0) {
        if (setpgid(0, group) != 0)
            _exit(127); // the guard is gone: tierscope is being killed
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execve("/bin/sh", const_cast<char* const*>(argv), envp.data()); // closes the rest
        _exit(127);
    }
    close(fds[1]);
    const auto release = [&] {
        send(lifeline[0], "d", 1, MSG_NOSIGNAL); // done: the guard goes, killing nothing
        close(lifeline[0]);
        int guardStatus = 0;
        waitpid(group, &guardStatus, 0);
        ChildGroups::remove(group);
    };
    if (pid < 0) {
        close(fds[0]);
        release();
        result.output = "cannot fork";
        return result;
    }
    setpgid(pid, group);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    Tail tail;
    char buffer[4096];
    bool reading = true; // until end of output: a command may close or detach it and go on
    int status = 0;
    bool exited = false;
    while (!exited) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        const bool cancelled = cancel && cancel->load();
        if (left.count() <= 0 || cancelled) {
            result.timedOut = !cancelled;
            result.cancelled = cancelled;
            stopGroup(group, pid);
            waitpid(pid, &status, 0);
            break;
        }
        // Short waits while a cancel can come: a signal handler cannot interrupt this thread's
        // poll reliably (another thread may take the signal).
        const int slice = cancel ? 20 : reading ? 200 : 20;
        const int wait = static_cast<int>(std::min<long long>(left.count(), slice));
        pollfd p{fds[0], POLLIN, 0};
        if (reading && poll(&p, 1, wait) > 0) {
            const ssize_t n = read(fds[0], buffer, sizeof buffer);
            if (n > 0) {
                tail.keep(buffer, static_cast<std::size_t>(n));
                continue;
            }
            reading = n < 0 && errno == EINTR; // end of output, or an error: stop reading
        } else if (!reading) {
            poll(nullptr, 0, wait);
        }
        exited = waitpid(pid, &status, WNOHANG) == pid;
    }
    // Drain what is left without waiting for background children holding the pipe.
    pollfd p{fds[0], POLLIN, 0};
    while (reading && poll(&p, 1, 0) > 0) {
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n <= 0)
            break;
        tail.keep(buffer, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    release();
    result.output = tail.text();
    if (!result.timedOut && !result.cancelled)
        result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

} // namespace tierscope
