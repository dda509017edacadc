#pragma once

#include "collectors/base/Collector.h"
#include "core/model/SampleSink.h"
#include "core/util/WallClock.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tierscope {

// Samples each collector at its own interval on its own thread (a slow source cannot delay the
// others), stamps readings with WallClock time, and reports its own CPU cost as
// self/cpu_seconds_per_s (all collectors) and self/<collector>/cpu_seconds_per_s, once a second.
// That same thread re-reads the clock's wall offset (WallClock::resync) every second.
class Scheduler {
  public:
    Scheduler(SampleSink& sink, const WallClock& clock);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    void add(std::unique_ptr<Collector> collector, std::chrono::nanoseconds interval);
    void start();
    void stop(); // wakes sleeping threads at once; idempotent

    std::vector<DeviceRecord> devices();
    std::int64_t cycles() const { return m_cycles.load(); }

  private:
    struct Entry {
        std::unique_ptr<Collector> collector;
        std::chrono::nanoseconds interval;
        std::atomic<std::int64_t> cpuNs{0};
        std::string errorLogged;
    };

    void runCollector(Entry& entry);
    void runSelfReport();
    bool sleepUntil(std::chrono::steady_clock::time_point t);

    SampleSink& m_sink;
    const WallClock& m_clock;
    std::vector<std::unique_ptr<Entry>> m_entries;
    std::vector<std::thread> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    std::atomic<std::int64_t> m_cycles{0};
};

} // namespace tierscope
