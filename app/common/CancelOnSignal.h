#pragma once

#include <atomic>
#include <csignal>
#include <initializer_list>
#include <vector>

namespace tierscope {

// While it lives, the given signals (Ctrl-C, SIGTERM) set a flag that long work polls to stop
// cleanly; they are unblocked, in case the parent left them blocked. A second signal kills the
// process groups tierscope started (ChildGroups), then ends the process by the signal. main()
// installs one before anything else, so that no signal is lost at any point of start-up or
// shut-down; commands that do not poll the flag hand the signal on with passOn(). Instances
// nest: the destructor puts back what was installed before.
class CancelOnSignal {
  public:
    explicit CancelOnSignal(std::initializer_list<int> signals = {SIGINT, SIGTERM});
    ~CancelOnSignal();
    CancelOnSignal(const CancelOnSignal&) = delete;
    CancelOnSignal& operator=(const CancelOnSignal&) = delete;

    // Puts back the previous actions now and, when a signal came meanwhile, raises it again,
    // so that it takes the action it would have had (for commands that never poll the flag).
    void passOn();

    static std::atomic<bool>& flag();
    static int signalNumber(); // the first signal taken, 0 when none

  private:
    void restore();

    std::vector<int> m_signals;
    std::vector<struct sigaction> m_previous;
    bool m_restored = false;
};

} // namespace tierscope
