#include "app/commands/JobCommand.h"

#include "app/common/ExitCode.h"
#include "core/util/FileDescriptor.h"
#include "core/util/WallClock.h"
#include "remote/RemoteStreamReader.h"
#include "remote/RemoteStreamWriter.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kMaxPlan = 1 << 20;
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

fs::path jobsDirectory(const GlobalOptions& global) {
    return fs::path(global.dbPath()).parent_path() / "jobs";
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

int start(const GlobalOptions& global, const JobCommand::Options& o) {
    if (o.args.empty() || (o.args[0] != "run" && o.args[0] != "storage")) {
        std::cerr << "tierscope job start: only `run` and `storage` commands run as jobs\n";
        return kExitUsage;
    }
    std::error_code ec;
    const std::string exe = fs::read_symlink("/proc/self/exe", ec).string();
    const std::string id =
        std::to_string(WallClock::systemNowNs() / 1'000'000) + "-" + std::to_string(getpid());
    // The job's files hold the plan, and with it the [arm.env] credentials: the directories
    // are the owner's alone, the files 0600, created here and never followed.
    const fs::path dir = jobsDirectory(global) / id;
    fs::create_directories(dir.parent_path().parent_path(), ec);
    if ((mkdir(dir.parent_path().c_str(), 0700) != 0 && errno != EEXIST) ||
        mkdir(dir.c_str(), 0700) != 0) {
        std::cerr << "tierscope job start: cannot create " << dir << ": " << std::strerror(errno)
                  << "\n";
        return kExitCannotWrite;
    }
    std::vector<std::string> argv{"tierscope", "--db", global.dbPath()};
    std::string plan;
    if (o.planStdin) {
        std::ostringstream in;
        in << std::cin.rdbuf();
        plan = in.str();
        if (plan.size() > kMaxPlan) {
            std::cerr << "tierscope job start: the plan is larger than 1 MiB\n";
            return kExitUsage;
        }
        if (!writePrivate(dir, "plan.toml", plan)) {
            std::cerr << "tierscope job start: cannot write " << dir / "plan.toml"
                      << ": " << std::strerror(errno) << "\n";
            return kExitCannotWrite;
        }
    }
    for (const auto& a : o.args)
        argv.push_back(a == "{plan}" && o.planStdin ? (dir / "plan.toml").string() : a);
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
    writer.job(id);
    writer.end("started");
    return jobPid(dir) > 0 ? kExitOk : kExitFailure;
}

// Streams the job's progress from its first line: each line of its stderr as a log line
// (a carriage-return progress line counts as a line), then its exit status. Returns when the
// job has ended, or when the workstation goes away (the job goes on).
int follow(const fs::path& dir) {
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
            return kExitOk;
        }
        if (!alive(jobPid(dir)) && !fs::exists(dir / "exit")) {
            writer.end("the job stopped without an exit status (killed?)");
            return kExitOk;
        }
        if (writer.failed())
            return kExitOk;
        const auto now = std::chrono::steady_clock::now();
        if (now >= nextBeat) {
            writer.heartbeat(WallClock::systemNowNs());
            nextBeat = now + std::chrono::seconds(1);
        }
        pollfd p{STDIN_FILENO, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) {
            char buffer[64];
            if (::read(STDIN_FILENO, buffer, sizeof buffer) <= 0)
                return kExitOk; // the workstation went away; the job goes on
        }
    }
}

int cancel(const fs::path& dir, bool force) {
    const pid_t pid = jobPid(dir);
    if (fs::exists(dir / "exit") || !alive(pid)) {
        std::cout << "job " << dir.filename().string() << " has already ended\n";
        return kExitOk;
    }
    // The group: the supervisor ignores SIGINT; tierscope stops its run cleanly on it.
    if (::kill(-pid, force ? SIGKILL : SIGINT) != 0) {
        std::cerr << "tierscope job cancel: " << std::strerror(errno) << "\n";
        return kExitFailure;
    }
    std::cout << "job " << dir.filename().string() << ": cancel sent\n";
    return kExitOk;
}

int output(const fs::path& dir) {
    std::ifstream in(dir / "out", std::ios::binary);
    char buffer[65536];
    std::size_t total = 0;
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        total += static_cast<std::size_t>(in.gcount());
        if (total > kMaxOutput)
            break;
        std::cout.write(buffer, in.gcount());
    }
    return kExitOk;
}

} // namespace

CLI::App* JobCommand::attach(CLI::App& parent, Options& o) {
    auto* job = parent.add_subcommand(
        "job", "Jobs on this machine started by a workstation's --target (run, storage run)");
    job->require_subcommand(1);
    auto* startCmd =
        job->add_subcommand("start", "Start tierscope ARGS... detached; prints its id");
    startCmd->add_flag("--plan-stdin", o.planStdin,
                       "Read the plan from stdin; {plan} in ARGS names its saved copy");
    startCmd->add_option("args", o.args, "The tierscope command, after --")->required();
    startCmd->callback([&o] { o.action = "start"; });
    for (const char* name : {"follow", "cancel", "output"}) {
        auto* cmd = job->add_subcommand(
            name, std::string(name) == "follow"   ? "Stream a job's progress from its start"
                  : std::string(name) == "cancel" ? "Stop a job (Ctrl-C to its process group)"
                                                  : "Print a job's report");
        cmd->add_option("id", o.id, "Job id")->required();
        if (std::string(name) == "cancel")
            cmd->add_flag("--force", o.force, "Kill the job's process group at once");
        cmd->callback([&o, name] { o.action = name; });
    }
    return job;
}

int JobCommand::run(const GlobalOptions& global, const Options& o) {
    if (o.action == "start")
        return start(global, o);
    if (!RemoteStreamReader::validJobId(o.id)) {
        std::cerr << "tierscope job: \"" << o.id << "\" is not a job id\n";
        return kExitUsage;
    }
    const fs::path dir = jobsDirectory(global) / o.id;
    if (!fs::exists(dir / "pid")) {
        std::cerr << "tierscope job: no job " << o.id << " in " << jobsDirectory(global) << "\n";
        return kExitNotFound;
    }
    if (o.action == "follow")
        return follow(dir);
    if (o.action == "cancel")
        return cancel(dir, o.force);
    return output(dir);
}

} // namespace tierscope
