#include "remote/SshProcess.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tierscope {

namespace {

constexpr std::size_t kStderrKeep = 16 * 1024;

void closeFd(int& fd) {
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

} // namespace

SshProcess::SshProcess(const std::vector<std::string>& argv, bool withStdin) {
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    if ((withStdin && pipe2(in, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 ||
        pipe2(err, O_CLOEXEC) != 0) {
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
            if (fd >= 0)
                ::close(fd);
        return;
    }
    const pid_t parent = getpid();
    m_pid = fork();
    if (m_pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        const int null = open("/dev/null", O_RDONLY);
        dup2(withStdin ? in[0] : null, STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        execvp(args[0], args.data());
        const char message[] = "cannot run ssh\n";
        (void)!::write(STDERR_FILENO, message, sizeof message - 1);
        _exit(254);
    }
    if (m_pid > 0)
        setpgid(m_pid, m_pid);
    for (int fd : {in[0], out[1], err[1]})
        if (fd >= 0)
            ::close(fd);
    m_stdin = withStdin ? in[1] : -1;
    m_stdout = out[0];
    m_stderr = err[0];
    if (m_pid < 0) {
        closeFd(m_stdin);
        closeFd(m_stdout);
        closeFd(m_stderr);
    }
}

SshProcess::~SshProcess() {
    terminate();
}

void SshProcess::drainStderr(int waitMs) {
    if (m_stderr < 0)
        return;
    pollfd p{m_stderr, POLLIN, 0};
    char buffer[4096];
    while (::poll(&p, 1, waitMs) > 0) {
        const ssize_t n = ::read(m_stderr, buffer, sizeof buffer);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            closeFd(m_stderr);
            return;
        }
        m_err.append(buffer, static_cast<std::size_t>(n));
        if (m_err.size() > kStderrKeep)
            m_err.erase(0, m_err.size() - kStderrKeep);
        waitMs = 0;
    }
}

std::string SshProcess::read(std::chrono::milliseconds timeout, std::size_t max) {
    if (m_stdout < 0)
        return {};
    pollfd p[2] = {{m_stdout, POLLIN, 0}, {m_stderr, POLLIN, 0}};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        p[1].fd = m_stderr;
        const int ready = ::poll(p, 2, static_cast<int>(std::max<long long>(0, left.count())));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return {};
        if (p[1].revents)
            drainStderr(0);
        if (p[0].revents) {
            std::string out(max, '\0');
            const ssize_t n = ::read(m_stdout, out.data(), max);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                closeFd(m_stdout);
                return {};
            }
            out.resize(static_cast<std::size_t>(n));
            return out;
        }
        if (left.count() <= 0)
            return {};
    }
}

bool SshProcess::write(const std::string& bytes) {
    // SIGPIPE is blocked around the write, so an ssh that is gone is an error, not our death.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    std::size_t done = 0;
    bool ok = m_stdin >= 0;
    while (ok && done < bytes.size()) {
        const ssize_t n = ::write(m_stdin, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok)
            done += static_cast<std::size_t>(n);
    }
    timespec zero{0, 0};
    while (sigtimedwait(&block, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

void SshProcess::closeStdin() {
    closeFd(m_stdin);
}

std::optional<int> SshProcess::wait(std::chrono::milliseconds timeout) {
    if (m_status || m_pid <= 0)
        return m_pid <= 0 ? std::optional<int>(-1) : m_status;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        int status = 0;
        const pid_t r = waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid) {
            m_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            drainStderr(0);
            return m_status;
        }
        if (r < 0 && errno != EINTR) {
            m_status = -1;
            return m_status;
        }
        if (std::chrono::steady_clock::now() >= deadline)
            return std::nullopt;
        drainStderr(20);
        if (m_stderr < 0)
            usleep(20000);
    }
}

void SshProcess::terminate() {
    if (m_pid > 0 && !m_status) {
        ::kill(-m_pid, SIGTERM);
        if (!wait(std::chrono::milliseconds(500))) {
            ::kill(-m_pid, SIGKILL);
            int status = 0;
            while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
            }
            m_status = -1;
        }
    }
    closeFd(m_stdin);
    closeFd(m_stdout);
    closeFd(m_stderr);
}

const std::string& SshProcess::stderrText() {
    drainStderr(0);
    return m_err;
}

} // namespace tierscope
