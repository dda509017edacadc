#pragma once

#include "core/util/ProcessIdentity.h"

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace tierscope {

// Processes that setup, teardown and engine commands left behind when the tierscope that
// started them died. Every such command gets TIERSCOPE_OWNER, naming the tierscope process; its
// descendants inherit it even when they leave the process group (setsid, nohup, a daemon), which
// the guard that kills the group cannot follow. A later `run` finds them by that variable and
// reports them; it kills nothing, as they may since belong to someone's work.
class LeftoverProcesses {
  public:
    static constexpr const char* kVariable = "TIERSCOPE_OWNER";

    struct Leftover {
        pid_t pid = 0;
        ProcessIdentity owner; // the tierscope that started it, now gone
        std::string command;   // its command line, arguments joined by spaces
    };

    // The value of kVariable for this process.
    static std::string ownerValue();

    // "<pid>/<start ticks>/<boot id>/<pid namespace>" back into an identity; nullopt when
    // malformed.
    static std::optional<ProcessIdentity> parseOwner(std::string_view value);

    // kVariable's value in the NUL-separated text of /proc/<pid>/environ.
    static std::optional<std::string> ownerIn(std::string_view environ);

    // The processes under `proc` whose owner is provably gone, seen from `here`.
    static std::vector<Leftover> find(const ProcessIdentity& here,
                                      const std::string& proc = "/proc");

    // One line per leftover, for the terminal.
    static std::string describe(const std::vector<Leftover>& leftovers);
};

} // namespace tierscope
