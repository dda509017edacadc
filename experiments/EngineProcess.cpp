#include "experiments/EngineProcess.h"

#include "experiments/ChildGroups.h"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tierscope {

namespace {

constexpr std::size_t kKeep = 256 * 1024;

using Clock = std::chrono::steady_clock;

} // namespace

EngineProcess::EngineProcess(std::string command, std::map<std::string, std::string> env)
    : m_command(std::move(command)), m_env(std::move(env)) {}

EngineProcess::~EngineProcess() {
    stop(std::chrono::seconds(5));
}

void EngineProcess::start() {
    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::vector<std::string> envText;
    for (char** e = environ; *e; ++e) {
        const std::string entry(*e);
        if (!m_env.count(entry.substr(0, entry.find('='))))
            envText.push_back(entry);
    }
    for (const auto& [k, v] : m_env)
        envText.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& e : envText)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    const char* argv[] = {"sh", "-c", m_command.c_str(), nullptr};

    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error("cannot create a pipe for the engine's output");
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        // Dies with the thread that forked it; the check closes the race with a parent that
        // died before prctl.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        // Ignored signals and the signal mask survive exec: the engine must get SIGTERM and
        // SIGPIPE as if started from a shell, not as tierscope handles them.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int s = 1; s < NSIG; ++s)
            if (s != SIGKILL && s != SIGSTOP)
                signal(s, SIG_DFL);
        if (devNull >= 0)
            dup2(devNull, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
#ifdef SYS_close_range
        syscall(SYS_close_range, 3u, ~0u, 0u); // no tierscope descriptor leaks into the engine
#endif
        execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
        _exit(127);
    }
    close(fds[1]);
    if (devNull >= 0)
        close(devNull);
    if (pid < 0) {
        close(fds[0]);
        throw std::runtime_error("cannot fork the engine");
    }
    setpgid(pid, pid); // both sides, so the group exists whichever runs first
    ChildGroups::add(pid);
    m_pid = pid;
    m_out = fds[0];
    m_reader = std::thread(&EngineProcess::readLoop, this);
}

void EngineProcess::readLoop() {
    char buffer[8192];
    for (;;) {
        if (m_stopReading && Clock::now().time_since_epoch().count() >= m_readUntil.load())
            return;
        pollfd p{m_out, POLLIN, 0};
        const int ready = poll(&p, 1, 100);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        const ssize_t n = read(m_out, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; // every writer closed
        std::lock_guard lock(m_mutex);
        m_log.append(buffer, static_cast<std::size_t>(n));
        m_logTotal += static_cast<std::uint64_t>(n);
        if (m_log.size() > kKeep)
            m_log.erase(0, m_log.size() - kKeep);
    }
}

bool EngineProcess::running() {
    if (m_pid <= 0 || m_waitStatus)
        return false;
    int status = 0;
    if (waitpid(m_pid, &status, WNOHANG) == m_pid) {
        m_waitStatus = status;
        return false;
    }
    return true;
}

std::string EngineProcess::describeExit() const {
    if (!m_waitStatus)
        return m_pid > 0 ? "running" : "not started";
    if (WIFEXITED(*m_waitStatus))
        return "exit " + std::to_string(WEXITSTATUS(*m_waitStatus));
    if (WIFSIGNALED(*m_waitStatus))
        return "killed by signal " + std::to_string(WTERMSIG(*m_waitStatus));
    return "ended";
}

bool EngineProcess::waitGroupGone(Clock::time_point deadline) {
    for (;;) {
        running(); // reaps the shell, which would stay a zombie member of the group
        if (groupMembers(m_pid).empty())
            return true;
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

bool EngineProcess::stop(std::chrono::milliseconds grace) {
    if (m_pid <= 0 || m_stopped)
        return true;
    m_stopped = true;
    kill(-m_pid, SIGTERM);
    bool gone = waitGroupGone(Clock::now() + grace);
    if (!gone) {
        kill(-m_pid, SIGKILL);
        gone = waitGroupGone(Clock::now() + std::chrono::seconds(10));
    }
    if (!m_waitStatus) {
        int status = 0;
        if (waitpid(m_pid, &status, gone ? 0 : WNOHANG) == m_pid)
            m_waitStatus = status;
    }
    if (gone)
        ChildGroups::remove(m_pid);
    // What the group wrote before it went is read to the end (the pipe's EOF ends the reader
    // at once); a process that left the group (setsid) may still hold the pipe, so not longer
    // than half a second, and not at all when members are left.
    m_readUntil = (gone ? Clock::now() + std::chrono::milliseconds(500) : Clock::now())
                      .time_since_epoch()
                      .count();
    m_stopReading = true;
    if (m_reader.joinable())
        m_reader.join();
    if (m_out >= 0)
        close(m_out);
    m_out = -1;
    return gone;
}

std::uint64_t EngineProcess::logSize() const {
    std::lock_guard lock(m_mutex);
    return m_logTotal;
}

std::string EngineProcess::logSince(std::uint64_t mark) const {
    std::lock_guard lock(m_mutex);
    const std::uint64_t wanted = m_logTotal > mark ? m_logTotal - mark : 0;
    if (wanted > m_log.size())
        return "[...]\n" + m_log;
    return m_log.substr(m_log.size() - static_cast<std::size_t>(wanted));
}

std::string EngineProcess::logTail(std::size_t bytes) const {
    std::lock_guard lock(m_mutex);
    return m_log.size() > bytes ? "[...]\n" + m_log.substr(m_log.size() - bytes) : m_log;
}

std::vector<int> EngineProcess::groupMembers(int pgid) {
    std::vector<int> out;
    if (pgid <= 0)
        return out;
    DIR* proc = opendir("/proc");
    if (!proc)
        return out;
    while (const dirent* e = readdir(proc)) {
        int pid = 0;
        const std::string_view name(e->d_name);
        if (std::from_chars(name.data(), name.data() + name.size(), pid).ptr !=
            name.data() + name.size())
            continue;
        std::ifstream in("/proc/" + std::string(name) + "/stat");
        std::string stat;
        std::getline(in, stat);
        // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        const auto close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        std::istringstream fields(stat.substr(close + 1));
        std::string state;
        int ppid = 0, pgrp = 0;
        if (!(fields >> state >> ppid >> pgrp))
            continue;
        if (pgrp == pgid && state != "Z" && state != "X")
            out.push_back(pid);
    }
    closedir(proc);
    return out;
}

} // namespace tierscope
