#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>

namespace tierscope {

// Runs a plan's setup or teardown: `/bin/sh -c TEXT` with extra environment, in its own
// process group, killed as a group (SIGTERM, then SIGKILL) when it outlives `timeout`, even
// when it closed or detached its output, and when tierscope itself dies while it runs. What
// it leaves running in the background after it exits is its own business. When `cancel` turns
// true (Ctrl-C) the group is stopped at once, the same way.
class ShellCommand {
  public:
    struct Result {
        int exitCode = -1; // -1 when killed or not started
        bool timedOut = false;
        bool cancelled = false;
        std::string output; // stdout and stderr together, the last 64 KiB
        bool ok() const { return exitCode == 0 && !timedOut && !cancelled; }
        std::string describe() const; // "exit 3", "timed out after 5 s", ...
    };
    static Result run(const std::string& text, const std::map<std::string, std::string>& env,
                      std::chrono::milliseconds timeout, const std::atomic<bool>* cancel = nullptr);
};

} // namespace tierscope
