#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tierscope {

// An experiment arm's inference engine: `/bin/sh -c COMMAND` in a process group of its own,
// output captured, stopped as a whole group. It exists so that no engine outlives its arm:
// the shell dies with the thread that started it (PR_SET_PDEATHSIG), and stop() signals every
// process in the group, not only the shell, and waits until none is left.
class EngineProcess {
  public:
    EngineProcess(std::string command, std::map<std::string, std::string> env);
    ~EngineProcess(); // stop()s what is still running, with a short grace
    EngineProcess(const EngineProcess&) = delete;
    EngineProcess& operator=(const EngineProcess&) = delete;

    void start(); // throws std::runtime_error when it cannot fork
    // Whether the shell still runs; reaps it when it has exited.
    bool running();
    std::string describeExit() const; // "exit 3", "killed by signal 9", "running"
    // SIGTERM to the group, SIGKILL to what is left after `grace`; returns once no process of
    // the group is alive (or after a last 10 s when something ignores SIGKILL, e.g. stuck in D
    // state). False when members were left.
    bool stop(std::chrono::milliseconds grace);

    int pid() const { return m_pid; } // also the process group id
    const std::string& command() const { return m_command; }
    std::uint64_t logSize() const;                  // bytes written so far
    std::string logSince(std::uint64_t mark) const; // what came after mark, as far as kept
    std::string logTail(std::size_t bytes) const;

    // Live (not zombie) processes whose process group is `pgid`, from /proc/*/stat.
    static std::vector<int> groupMembers(int pgid);

  private:
    void readLoop();
    bool waitGroupGone(std::chrono::steady_clock::time_point deadline);

    std::string m_command;
    std::map<std::string, std::string> m_env;
    int m_pid = -1;
    std::optional<int> m_waitStatus;
    bool m_stopped = false;
    int m_out = -1;
    std::thread m_reader;
    std::atomic<bool> m_stopReading{false};
    std::atomic<std::int64_t> m_readUntil{0}; // steady-clock ticks: the reader drains until then
    mutable std::mutex m_mutex; // guards the log
    std::string m_log;          // the last kKeep bytes
    std::uint64_t m_logTotal = 0;
};

} // namespace tierscope
