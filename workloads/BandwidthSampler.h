#pragma once

#include "workloads/IoRunner.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace tierscope {

// Turns an IoRunner's byte counters into bandwidth samples every `interval` on its own
// thread, so a workload appears on the timeline as it runs; stop() delivers the last,
// partial interval.
class BandwidthSampler {
  public:
    struct Rates {
        std::chrono::steady_clock::time_point at;
        double readBytesPerS = 0.0;
        double writeBytesPerS = 0.0;
        std::uint64_t bytesRead = 0;
        std::uint64_t bytesWritten = 0;
    };
    using Callback = std::function<void(const Rates&)>;

    BandwidthSampler(const IoRunner& runner, std::chrono::milliseconds interval, Callback onRates);
    ~BandwidthSampler();
    void stop();

  private:
    void loop();
    void sample();

    const IoRunner& m_runner;
    std::chrono::milliseconds m_interval;
    Callback m_onRates;
    std::chrono::steady_clock::time_point m_last;
    std::uint64_t m_lastRead = 0;
    std::uint64_t m_lastWritten = 0;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace tierscope
