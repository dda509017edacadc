#include "core/store/StoreWriter.h"

#include "core/store/ChunkCodec.h"
#include "core/store/SealWriter.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"

#include <algorithm>
#include <cmath>
#include <spdlog/spdlog.h>

namespace tierscope {

// Everything that touches the connection; lives on the writer thread only.
class StoreWriter::Worker {
  public:
    Worker(std::unique_ptr<Store> store, std::int64_t writerId)
        : m_store(std::move(store)), m_writerId(writerId),
          m_insert(m_store->db().prepare("INSERT INTO sample_recent(metric_id, t_start, t_end, n, "
                                         "data, writer_id) VALUES (?, ?, ?, ?, ?, ?)")),
          m_seal(m_store->db()) {}

    void commit(const Batch& batch) {
        SqliteDb& db = m_store->db();
        db.exec("BEGIN");
        try {
            for (const auto& d : batch.definitions) {
                if (m_ids.size() <= static_cast<std::size_t>(d.handle))
                    m_ids.resize(static_cast<std::size_t>(d.handle) + 1, 0);
                m_ids[static_cast<std::size_t>(d.handle)] =
                    m_store->defineMetric(d.sessionId, d.metric);
            }
            groupBySeries(batch);
            std::int64_t first = 0;
            for (const int handle : m_touched) {
                const auto& samples = m_pending[static_cast<std::size_t>(handle)];
                const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end(), byTime);
                const auto blob = ChunkCodec::encode(samples);
                m_insert.bind(1, m_ids[static_cast<std::size_t>(handle)])
                    .bind(2, lo->tNs)
                    .bind(3, hi->tNs)
                    .bind(4, static_cast<std::int64_t>(samples.size()))
                    .bind(5, std::span<const unsigned char>(blob))
                    .bind(6, m_writerId)
                    .run();
                if (first == 0)
                    first = db.lastInsertRowid();
            }
            const std::int64_t last = db.lastInsertRowid();
            db.exec("COMMIT");
            if (!m_touched.empty())
                rememberRange(first, last);
        } catch (...) {
            rollback();
            clearPending();
            throw;
        }
        if (m_unsealed.size() < m_ids.size())
            m_unsealed.resize(m_ids.size());
        for (const int handle : m_touched) {
            auto& pending = m_pending[static_cast<std::size_t>(handle)];
            auto& unsealed = m_unsealed[static_cast<std::size_t>(handle)];
            if (unsealed.empty())
                unsealed.swap(pending); // both keep their capacity for the next round
            else
                unsealed.insert(unsealed.end(), pending.begin(), pending.end());
        }
        m_unsealedRows += batch.samples.size();
        m_stagedRows += static_cast<std::int64_t>(m_touched.size());
        clearPending();
    }

    std::size_t unsealedRows() const { return m_unsealedRows; }

    void seal() {
        if (m_unsealedRows == 0)
            return;
        SqliteDb& db = m_store->db();
        db.exec("BEGIN IMMEDIATE");
        try {
            for (std::size_t h = 0; h < m_unsealed.size(); ++h) {
                auto& samples = m_unsealed[h];
                if (samples.empty())
                    continue;
                if (!std::is_sorted(samples.begin(), samples.end(), byTime))
                    std::stable_sort(samples.begin(), samples.end(), byTime);
                m_seal.write(m_ids[h], samples);
            }
            // Exactly the rows this writer staged: any other count means another process
            // sealed or removed them, and committing would store them twice.
            auto del = db.prepare(
                "DELETE FROM sample_recent WHERE writer_id = ? AND rowid BETWEEN ? AND ?");
            std::int64_t deleted = 0;
            for (const auto& [first, last] : m_ranges) {
                del.bind(1, m_writerId).bind(2, first).bind(3, last).run();
                deleted += db.changes();
            }
            if (deleted != m_stagedRows)
                throw StoreError(StoreError::Code::Io,
                                 "seal found " + std::to_string(deleted) + " of the " +
                                     std::to_string(m_stagedRows) +
                                     " staged rows of this writer in " + db.path() +
                                     "; another process changed them");
            db.exec("COMMIT");
        } catch (...) {
            rollback();
            throw;
        }
        for (auto& samples : m_unsealed)
            samples.clear();
        m_ranges.clear();
        m_unsealedRows = 0;
        m_stagedRows = 0;
    }

    // After the last seal: nothing of this writer is left for anyone to recover.
    void retire() { m_store->unregisterWriter(m_writerId); }

  private:
    static bool byTime(const Sample& a, const Sample& b) { return a.tNs < b.tNs; }

    // One staging row per series per commit, whatever the sample rate.
    void groupBySeries(const Batch& batch) {
        if (m_pending.size() < m_ids.size())
            m_pending.resize(m_ids.size());
        for (const auto& s : batch.samples) {
            auto& series = m_pending[static_cast<std::size_t>(s.handle)];
            if (series.empty())
                m_touched.push_back(s.handle);
            series.push_back({s.tNs, s.value});
        }
    }

    void clearPending() {
        for (const int handle : m_touched)
            m_pending[static_cast<std::size_t>(handle)].clear();
        m_touched.clear();
    }

    void rememberRange(std::int64_t first, std::int64_t last) {
        // Rowids of one transaction are contiguous: no other writer can insert meanwhile.
        if (!m_ranges.empty() && m_ranges.back().second + 1 == first)
            m_ranges.back().second = last;
        else
            m_ranges.emplace_back(first, last);
    }

    void rollback() {
        try {
            m_store->db().exec("ROLLBACK");
        } catch (const StoreError&) {
            // SQLite may already have rolled back (e.g. SQLITE_FULL); nothing left to undo.
        }
    }

    std::unique_ptr<Store> m_store;
    std::int64_t m_writerId;
    SqliteStatement m_insert;
    SealWriter m_seal;
    std::vector<std::int64_t> m_ids;
    std::vector<std::vector<Sample>> m_pending; // this commit's samples, by handle
    std::vector<int> m_touched;                 // handles with pending samples, first-seen order
    std::vector<std::vector<Sample>> m_unsealed;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_ranges;
    std::size_t m_unsealedRows = 0; // samples
    std::int64_t m_stagedRows = 0;  // sample_recent rows
};

StoreWriter::StoreWriter(const std::string& dbPath, Options options)
    : m_options(options), m_path(dbPath) {
    // Reserved, not touched: the pages a burst fills are faulted in once and then reused.
    m_queue.samples.reserve(std::min(m_options.commitRows, m_options.maxQueued));
    // Opened here so a bad path fails in the caller's thread with a StoreError.
    auto store = std::make_unique<Store>(dbPath, Store::Mode::ReadWrite);
    const std::int64_t writerId = store->registerWriter();
    const auto recovered = store->recoverAbandoned();
    if (recovered.samples > 0 || recovered.runs > 0)
        spdlog::info("recovered {} unsealed samples and {} unfinished runs of {} writers that "
                     "ended without closing the workspace",
                     recovered.samples, recovered.runs, recovered.writers);
    m_thread =
        std::thread(&StoreWriter::run, this, std::make_unique<Worker>(std::move(store), writerId));
}

StoreWriter::~StoreWriter() {
    stop();
}

int StoreWriter::defineMetric(std::int64_t sessionId, const MetricDescriptor& metric) {
    std::lock_guard lock(m_mutex);
    const int handle = m_nextHandle++;
    m_paths.push_back(metric.path);
    m_queue.definitions.push_back({handle, sessionId, metric});
    ++m_enqueuedGeneration;
    return handle;
}

void StoreWriter::append(int handle, std::int64_t tNs, double value) {
    const PendingSample s{handle, tNs, value};
    append(std::span<const PendingSample>(&s, 1));
}

void StoreWriter::append(std::span<const PendingSample> samples) {
    std::optional<PendingSample> nonFinite;
    std::string path;
    {
        std::unique_lock lock(m_mutex);
        const auto live = [&] { return !m_stopping && !m_error && !m_queue.samples.empty(); };
        // Backpressure: past maxQueued the producer waits for the writer, however long.
        while (live() && m_queue.samples.size() >= m_options.maxQueued)
            handOver(lock, std::chrono::milliseconds::max());
        // Before this span outgrows the queue's reserved capacity the writer is asked to take
        // it, and given one commit interval to do so: a writer held up longer (its disk stalled
        // by the very storage test being observed) must not stall the collectors, whose queue
        // then grows as it always could.
        if (live() && m_queue.samples.size() + samples.size() > m_options.commitRows)
            handOver(lock, m_options.commitInterval);
        if (m_stopping || m_error) {
            m_stats.droppedSamples += static_cast<std::int64_t>(samples.size());
            return;
        }
        nonFinite = enqueueFinite(samples);
        ++m_enqueuedGeneration;
        if (!nonFinite || m_nonFiniteLogged)
            return;
        m_nonFiniteLogged = true;
        const auto h = static_cast<std::size_t>(nonFinite->handle);
        path = h < m_paths.size() ? m_paths[h] : "handle " + std::to_string(nonFinite->handle);
    }
    spdlog::warn("dropped a non-finite value ({}) of {}: NaN and infinities are never stored; "
                 "later ones are dropped and counted without a log line",
                 nonFinite->value, path);
}

std::optional<StoreWriter::PendingSample>
StoreWriter::enqueueFinite(std::span<const PendingSample> samples) {
    auto finite = [](const PendingSample& s) { return std::isfinite(s.value); };
    auto& queue = m_queue.samples;
    if (std::all_of(samples.begin(), samples.end(), finite)) {
        queue.insert(queue.end(), samples.begin(), samples.end());
        return std::nullopt;
    }
    std::optional<PendingSample> first;
    for (const auto& s : samples) {
        if (finite(s)) {
            queue.push_back(s);
            continue;
        }
        ++m_stats.nonFiniteSamples;
        if (!first)
            first = s;
    }
    return first;
}

void StoreWriter::handOver(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds patience) {
    // Without the wait a producer that never pauses keeps the mutex, the writer takes the
    // queue only at the interval, and the queue grows by reallocation into fresh pages.
    const std::uint64_t handOvers = m_handOvers;
    m_flushRequested = true;
    m_wake.notify_all();
    const auto taken = [&] { return m_handOvers != handOvers || m_stopping || m_error; };
    if (patience == std::chrono::milliseconds::max())
        m_progress.wait(lock, taken);
    else
        m_progress.wait_for(lock, patience, taken);
}

void StoreWriter::flush() {
    std::unique_lock lock(m_mutex);
    const std::uint64_t target = m_enqueuedGeneration;
    m_flushRequested = true;
    m_wake.notify_all();
    m_progress.wait(lock, [&] { return m_committedGeneration >= target || m_stopped; });
}

void StoreWriter::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_progress.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

std::optional<std::string> StoreWriter::error() const {
    std::lock_guard lock(m_mutex);
    return m_error ? std::optional<std::string>(m_error->what()) : std::nullopt;
}

std::optional<StoreError> StoreWriter::failure() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

StoreWriter::Stats StoreWriter::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void StoreWriter::run(std::unique_ptr<Worker> worker) {
    using Clock = std::chrono::steady_clock;
    auto nextCommit = Clock::now() + m_options.commitInterval;
    auto nextSeal = Clock::now() + m_options.sealInterval;
    Batch batch; // swapped with the queue each round, so both keep their capacity
    batch.samples.reserve(std::min(m_options.commitRows, m_options.maxQueued));
    for (;;) {
        batch.definitions.clear();
        batch.samples.clear();
        std::uint64_t generation = 0;
        bool stopping = false;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_until(lock, nextCommit, [&] { return m_stopping || m_flushRequested; });
            std::swap(batch, m_queue);
            ++m_handOvers;
            generation = m_enqueuedGeneration;
            stopping = m_stopping;
            m_flushRequested = false;
        }
        m_progress.notify_all(); // the queue has room again
        const auto now = Clock::now();
        nextCommit = std::max(nextCommit + m_options.commitInterval, now);

        std::optional<StoreError> failure;
        bool sealed = false;
        if (!error()) {
            try {
                worker->commit(batch);
                if (stopping || now >= nextSeal || worker->unsealedRows() >= m_options.sealRows) {
                    worker->seal();
                    sealed = true;
                    nextSeal = now + m_options.sealInterval;
                }
                if (stopping)
                    worker->retire();
            } catch (const StoreError& e) {
                failure = e;
                spdlog::error("recording stopped: {}", e.what());
            }
        }
        {
            std::lock_guard lock(m_mutex);
            if (failure) {
                m_error = failure;
                m_stats.droppedSamples += static_cast<std::int64_t>(batch.samples.size());
            } else if (!m_error) {
                m_stats.committedSamples += static_cast<std::int64_t>(batch.samples.size());
                ++m_stats.commits;
                m_stats.seals += sealed ? 1 : 0;
            } else {
                m_stats.droppedSamples += static_cast<std::int64_t>(batch.samples.size());
            }
            m_committedGeneration = generation;
            if (stopping)
                m_stopped = true;
        }
        m_progress.notify_all();
        if (stopping)
            return;
    }
}

} // namespace tierscope
