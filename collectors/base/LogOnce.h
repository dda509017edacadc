#pragma once

#include <mutex>
#include <set>
#include <string>

namespace tierscope {

// Remembers which failures were already logged, so a reading that fails every cycle is
// reported once, not ten times a second. Thread-safe: collectors share one per backend.
class LogOnce {
  public:
    // True the first time `key` is seen.
    bool first(const std::string& key) {
        std::lock_guard lock(m_mutex);
        return m_seen.insert(key).second;
    }

  private:
    std::mutex m_mutex;
    std::set<std::string> m_seen;
};

} // namespace tierscope
