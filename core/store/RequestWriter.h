#pragma once

#include "core/model/RequestRecord.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tierscope {

class Store;

// Stores a load run's requests while it runs: the load loop hands each finished request over
// and forgets it, and one thread commits what has queued every commitInterval on its own
// connection. Memory stays flat however long the run, a crash loses at most one interval, and
// the load loop never waits on SQLite.
class RequestWriter {
  public:
    RequestWriter(const std::string& dbPath, std::int64_t runId,
                  std::chrono::milliseconds commitInterval = std::chrono::milliseconds(250));
    ~RequestWriter();
    RequestWriter(const RequestWriter&) = delete;
    RequestWriter& operator=(const RequestWriter&) = delete;

    void push(RequestRecord record);
    // Commits everything pushed so far and ends the thread. Idempotent.
    void stop();

    std::int64_t committed() const;
    std::int64_t dropped() const; // pushed after a failed commit
    std::optional<std::string> error() const;

  private:
    void run();

    std::unique_ptr<Store> m_store;
    std::int64_t m_runId;
    std::chrono::milliseconds m_interval;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<RequestRecord> m_queue;
    bool m_stopping = false;
    std::int64_t m_committed = 0;
    std::int64_t m_dropped = 0;
    std::optional<std::string> m_error;
    std::thread m_thread;
};

} // namespace tierscope
