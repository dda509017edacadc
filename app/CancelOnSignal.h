#pragma once

#include <atomic>
#include <csignal>
#include <initializer_list>
#include <vector>

namespace tierscope {

// While it lives, the given signals (Ctrl-C, ...) set a flag that long work polls to stop
// cleanly. A second signal gets the default action and ends the process. The destructor
// restores the default actions, also when the work throws.
class CancelOnSignal {
  public:
    explicit CancelOnSignal(std::initializer_list<int> signals = {SIGINT, SIGTERM});
    ~CancelOnSignal();
    CancelOnSignal(const CancelOnSignal&) = delete;
    CancelOnSignal& operator=(const CancelOnSignal&) = delete;

    static std::atomic<bool>& flag();

  private:
    std::vector<int> m_signals;
};

} // namespace tierscope
