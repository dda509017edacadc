#pragma once

#include "core/model/MetricDescriptor.h"
#include "core/model/Sample.h"
#include "core/store/StoreError.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace tierscope {

// The single writer of a workspace. Producers enqueue; one thread commits a batch every
// commitInterval (WAL, synchronous=NORMAL), so a crash loses at most the open batch, or sooner
// once commitRows samples wait: a producer that queued that many waits (up to one commit
// interval) until the writer has taken them, so a burst reuses two small queues instead of
// growing one by tens of megabytes
// (first-touched pages cost 20-28 us each on some VMs; see docs/PERFORMANCE.md). Committed
// rows land in the index-free staging table; every sealInterval they are moved into packed
// per-series chunks plus rollups in one transaction (see SealWriter and docs/PERFORMANCE.md for
// why this beats a (metric, time) key).
class StoreWriter {
  public:
    struct Options {
        std::chrono::milliseconds commitInterval{250};
        std::chrono::milliseconds sealInterval{10'000};
        std::size_t sealRows = 500'000;    // seal early when staging grows past this
        std::size_t maxQueued = 4'000'000; // producers block beyond this (backpressure)
        std::size_t commitRows = 131'072;  // commit early, handing the queue over, at this many
    };
    struct PendingSample {
        int handle = 0;
        std::int64_t tNs = 0;
        double value = 0.0;
    };
    struct Stats {
        std::int64_t committedSamples = 0;
        std::int64_t commits = 0;
        std::int64_t seals = 0;
        std::int64_t droppedSamples = 0;   // only after a write error
        std::int64_t nonFiniteSamples = 0; // NaN or infinite values, never stored
    };

    StoreWriter(const std::string& dbPath, Options options);
    explicit StoreWriter(const std::string& dbPath) : StoreWriter(dbPath, Options{}) {}
    ~StoreWriter();
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    // Returns a handle for append(); the metric row is created by the writer thread before any
    // of its samples.
    int defineMetric(std::int64_t sessionId, const MetricDescriptor& metric);
    // A NaN or infinite value is dropped here and counted, the first one logged: SQLite would
    // store NaN as NULL and the rollup bucket would read back as 0.
    void append(int handle, std::int64_t tNs, double value);
    void append(std::span<const PendingSample> samples);

    // Blocks until everything enqueued so far is committed (not necessarily sealed).
    void flush();
    // Commits and seals everything, then ends the thread. Idempotent.
    void stop();

    // Set once a commit failed (disk full, I/O error); later samples are dropped and counted.
    std::optional<std::string> error() const;
    // The same with its code, for the exit status of a command whose recording failed.
    std::optional<StoreError> failure() const;
    Stats stats() const;

  private:
    struct Definition {
        int handle;
        std::int64_t sessionId;
        MetricDescriptor metric;
    };
    struct Batch {
        std::vector<Definition> definitions;
        std::vector<PendingSample> samples;
    };
    class Worker;

    void run(std::unique_ptr<Worker> worker);
    // Asks the writer to take the queue now and waits until it has, stops, or `patience`
    // passed (milliseconds::max(): no limit); under m_mutex.
    void handOver(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds patience);
    // Queues the finite samples; under m_mutex. Returns the first non-finite one, if any.
    std::optional<PendingSample> enqueueFinite(std::span<const PendingSample> samples);

    Options m_options;
    std::string m_path;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_progress;
    Batch m_queue;
    int m_nextHandle = 0;
    std::vector<std::string> m_paths; // by handle, for the log line
    bool m_nonFiniteLogged = false;
    std::uint64_t m_enqueuedGeneration = 0;
    std::uint64_t m_committedGeneration = 0;
    bool m_flushRequested = false;
    std::uint64_t m_handOvers = 0; // queues the writer has taken
    bool m_stopping = false;
    bool m_stopped = false;
    std::optional<StoreError> m_error;
    Stats m_stats;
    std::thread m_thread;
};

} // namespace tierscope
