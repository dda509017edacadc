#include "remote/JobHost.h"

#include "core/util/FileDescriptor.h"
#include "core/util/WallClock.h"
#include "remote/RemoteStreamWriter.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kMaxOutput = 16 << 20;

// A new owner-only file in the job's directory: O_EXCL, so nothing planted there is written
// through.
bool writePrivate(const fs::path& dir, const char* name, const std::string& text) {
    const int fd =
        open((dir / name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    const bool ok = FileDescriptor::writeAll(fd, text);
    return close(fd) == 0 && ok;
}

bool toStdout(const std::string& line) {
    return FileDescriptor::writeAll(STDOUT_FILENO, line);
}

std::string hostName() {
    char buffer[256] = {};
    return gethostname(buffer, sizeof buffer - 1) == 0 ? buffer : "unknown";
}

std::optional<std::string> readSmall(const fs::path& path, std::size_t max = 4096) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string text(max, '\0');
    in.read(text.data(), static_cast<std::streamsize>(max));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

// Alive and not a zombie: an exited supervisor may wait for a parent to reap it.
bool alive(pid_t pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0)
        return false;
    const auto stat = readSmall("/proc/" + std::to_string(pid) + "/stat");
    if (!stat)
        return false;
    const auto close = stat->rfind(')');
    return close == std::string::npos || close + 2 >= stat->size() || (*stat)[close + 2] != 'Z';
}

pid_t jobPid(const fs::path& dir) {
    const auto text = readSmall(dir / "pid");
    return text ? static_cast<pid_t>(std::atol(text->c_str())) : 0;
}

// The supervisor: leader of the job's session and process group. Runs tierscope on the job,
// then leaves its exit status in `exit` (written whole, by rename). It ignores the signals
// meant for the job (Ctrl-C from the workstation), so the status is always written unless the
// group is killed.
[[noreturn]] void supervise(const fs::path& dir, const std::string& exe,
                            const std::vector<std::string>& argv) {
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGHUP, SIG_IGN);
    std::signal(SIGTERM, SIG_IGN);
    const pid_t worker = fork();
    if (worker == 0) {
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGHUP, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        const int out =
            open((dir / "out").c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        const int err = open((dir / "log").c_str(),
                             O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(exe.c_str(), args.data());
        _exit(127);
    }
    int status = 0;
    while (worker > 0 && waitpid(worker, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = worker < 0            ? 127
                     : WIFEXITED(status)   ? WEXITSTATUS(status)
                     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                           : 1;
    writePrivate(dir, "exit.tmp", std::to_string(code) + "\n");
    fs::rename(dir / "exit.tmp", dir / "exit");
    _exit(0);
}

} // namespace

JobHost::Started JobHost::start(const std::string& dbPath, const std::vector<std::string>& args,
                                const std::optional<std::string>& plan) const {
    Started result;
    std::error_code ec;
    const std::string exe = fs::read_symlink("/proc/self/exe", ec).string();
    result.id =
        std::to_string(WallClock::systemNowNs() / 1'000'000) + "-" + std::to_string(getpid());
    // The job's files hold the plan, and with it the [arm.env] credentials: the directories
    // are the owner's alone, the files 0600, created here and never followed.
    const fs::path dir = m_jobs / result.id;
    fs::create_directories(dir.parent_path().parent_path(), ec);
    if ((mkdir(dir.parent_path().c_str(), 0700) != 0 && errno != EEXIST) ||
        mkdir(dir.c_str(), 0700) != 0) {
        result.status = Started::Status::CannotWrite;
        result.error = "cannot create " + dir.string() + ": " + std::strerror(errno);
        return result;
    }
    std::vector<std::string> argv{"tierscope", "--db", dbPath};
    if (plan && !writePrivate(dir, "plan.toml", *plan)) {
        result.status = Started::Status::CannotWrite;
        result.error = "cannot write " + (dir / "plan.toml").string() + ": " + std::strerror(errno);
        return result;
    }
    for (const auto& a : args)
        argv.push_back(a == "{plan}" && plan ? (dir / "plan.toml").string() : a);
    std::cout.flush();
    const pid_t child = fork();
    if (child == 0) {
        setsid(); // a session and process group of its own: no SIGHUP from the SSH session
        const int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (fork() != 0)
            _exit(0);
        setpgid(0, 0); // the group's id is then the pid file's: `cancel` signals -pid
        writePrivate(dir, "pid", std::to_string(getpid()) + "\n");
        supervise(dir, exe, argv);
    }
    int status = 0;
    waitpid(child, &status, 0);
    for (int i = 0; i < 100 && jobPid(dir) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    RemoteStreamWriter writer(toStdout);
    writer.hello("job", hostName(), 0);
    writer.job(result.id);
    writer.end("started");
    if (jobPid(dir) > 0)
        result.status = Started::Status::Started;
    else
        result.error = "the job did not start";
    return result;
}

bool JobHost::exists(const std::string& id) const {
    return fs::exists(m_jobs / id / "pid");
}

// Streams the job's progress from its first line: each line of its stderr as a log line
// (a carriage-return progress line counts as a line), then its exit status. Returns when the
// job has ended, or when the workstation goes away (the job goes on).
void JobHost::follow(const std::string& id) const {
    const fs::path dir = m_jobs / id;
    std::signal(SIGPIPE, SIG_IGN);
    RemoteStreamWriter writer(toStdout);
    writer.hello("job", hostName(), 0);
    writer.job(dir.filename().string());
    std::ifstream log;
    std::string partial;
    auto nextBeat = std::chrono::steady_clock::now();
    const auto drain = [&] {
        if (!log.is_open())
            log.open(dir / "log", std::ios::binary);
        if (!log.is_open())
            return;
        log.clear();
        char buffer[8192];
        while (log.read(buffer, sizeof buffer) || log.gcount() > 0) {
            for (std::streamsize i = 0; i < log.gcount(); ++i) {
                const char c = buffer[i];
                if (c == '\n' || c == '\r') {
                    if (!partial.empty())
                        writer.log(partial);
                    partial.clear();
                } else if (partial.size() < 4000) {
                    partial += c;
                }
            }
        }
        log.clear();
    };
    for (;;) {
        const bool exited = fs::exists(dir / "exit");
        drain();
        if (exited) {
            if (!partial.empty())
                writer.log(partial);
            const auto code = readSmall(dir / "exit");
            writer.exit(code ? std::atoi(code->c_str()) : 1);
            writer.end("finished");
            return;
        }
        if (!alive(jobPid(dir)) && !fs::exists(dir / "exit")) {
            writer.end("the job stopped without an exit status (killed?)");
            return;
        }
        if (writer.failed())
            return;
        const auto now = std::chrono::steady_clock::now();
        if (now >= nextBeat) {
            writer.heartbeat(WallClock::systemNowNs());
            nextBeat = now + std::chrono::seconds(1);
        }
        pollfd p{STDIN_FILENO, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) {
            char buffer[64];
            if (::read(STDIN_FILENO, buffer, sizeof buffer) <= 0)
                return; // the workstation went away; the job goes on
        }
    }
}

JobHost::Cancel JobHost::cancel(const std::string& id, bool force, std::string& error) const {
    const fs::path dir = m_jobs / id;
    const pid_t pid = jobPid(dir);
    if (fs::exists(dir / "exit") || !alive(pid))
        return Cancel::AlreadyEnded;
    // The group: the supervisor ignores SIGINT; tierscope stops its run cleanly on it.
    if (::kill(-pid, force ? SIGKILL : SIGINT) != 0) {
        error = std::strerror(errno);
        return Cancel::Failed;
    }
    return Cancel::Sent;
}

void JobHost::output(const std::string& id) const {
    const fs::path dir = m_jobs / id;
    std::ifstream in(dir / "out", std::ios::binary);
    char buffer[65536];
    std::size_t total = 0;
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        total += static_cast<std::size_t>(in.gcount());
        if (total > kMaxOutput)
            break;
        std::cout.write(buffer, in.gcount());
    }
}

} // namespace tierscope
