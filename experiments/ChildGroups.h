#pragma once

namespace tierscope {

// The process groups tierscope has started and not yet reaped (setup and teardown commands,
// engines), so that a second Ctrl-C can kill them before tierscope exits. A fixed table of
// atomics: killAll() runs inside a signal handler, where only async-signal-safe calls are
// allowed. add() returns false when the table is full (the group then relies on its guard).
class ChildGroups {
  public:
    static bool add(int pgid) noexcept;
    static void remove(int pgid) noexcept;
    static void killAll(int signal) noexcept;
};

} // namespace tierscope
