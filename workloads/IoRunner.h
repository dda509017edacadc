#pragma once

#include "workloads/IoJob.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// Executes an IoJob through one io_uring on the calling thread. Progress counters may be read
// from other threads while it runs (the 100 ms bandwidth sampler does).
class IoRunner {
  public:
    struct Result {
        double seconds = 0.0;
        std::uint64_t bytesRead = 0;
        std::uint64_t bytesWritten = 0;
        std::vector<double> streamSeconds; // first submission to last completion, per stream
        std::vector<double> fileSeconds;   // per file, in job order
        int filesOpened = 0;
        int filesBuffered = 0; // opened without O_DIRECT (asked for, or refused by the fs)
        std::string bufferedReason;
        bool cancelled = false;
        bool pageCacheBypassed() const { return filesOpened > 0 && filesBuffered == 0; }
    };

    explicit IoRunner(IoJob job);

    // Throws WorkloadError on the first failed open or I/O; operations in flight are drained
    // first, so no buffer is freed under the kernel.
    Result run(const std::atomic<bool>* cancel = nullptr);

    std::uint64_t bytesRead() const { return m_bytesRead.load(std::memory_order_relaxed); }
    std::uint64_t bytesWritten() const { return m_bytesWritten.load(std::memory_order_relaxed); }

  private:
    IoJob m_job;
    std::atomic<std::uint64_t> m_bytesRead{0};
    std::atomic<std::uint64_t> m_bytesWritten{0};
};

} // namespace tierscope
