#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// Names one process for as long as the machine is up, so another process can later prove it
// is gone: a pid alone is reused, so it is paired with the process's start time (field 22 of
// /proc/<pid>/stat, in clock ticks since boot), the boot it belongs to, and the pid namespace
// the pid is counted in.
class ProcessIdentity {
  public:
    std::string bootId;       // /proc/sys/kernel/random/boot_id
    std::string pidNamespace; // the target of /proc/self/ns/pid, e.g. "pid:[4026531836]"
    std::int64_t pid = 0;
    std::int64_t startTicks = 0;

    static ProcessIdentity self();

    // The start time of the process whose /proc/<pid>/stat text this is; nullopt when malformed.
    static std::optional<std::int64_t> parseStartTicks(std::string_view stat);

    // True only when the process this names certainly no longer runs, seen from `here`: the
    // machine rebooted since, or, in the same pid namespace, the pid is free or now names a
    // process started at another time. A process in another pid namespace (another container
    // sharing the workspace) cannot be checked and counts as alive.
    bool provablyGone(const ProcessIdentity& here) const;

  private:
    static std::optional<std::int64_t> startTicksOf(std::int64_t pid);
};

} // namespace tierscope
