#include "core/store/RequestWriter.h"

#include "core/store/Store.h"

#include <exception>

namespace tierscope {

namespace {

// `load` writes without a StoreWriter, and is as much the next writer of a workspace: it, too,
// cleans up after writers that are gone (their staged samples, their unfinished runs).
std::unique_ptr<Store> openAndRecover(const std::string& dbPath) {
    auto store = std::make_unique<Store>(dbPath, Store::Mode::ReadWrite);
    store->recoverAbandoned();
    return store;
}

} // namespace

RequestWriter::RequestWriter(const std::string& dbPath, std::int64_t runId,
                             std::chrono::milliseconds commitInterval)
    : m_store(openAndRecover(dbPath)), m_runId(runId), m_interval(commitInterval),
      m_thread(&RequestWriter::run, this) {}

RequestWriter::~RequestWriter() {
    stop();
}

void RequestWriter::push(RequestRecord record) {
    record.outputText.clear(); // the store keeps figures, not answers
    std::lock_guard lock(m_mutex);
    if (m_error) {
        ++m_dropped;
        return;
    }
    m_queue.push_back(std::move(record));
}

void RequestWriter::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

std::int64_t RequestWriter::committed() const {
    std::lock_guard lock(m_mutex);
    return m_committed;
}

std::int64_t RequestWriter::dropped() const {
    std::lock_guard lock(m_mutex);
    return m_dropped;
}

std::optional<std::string> RequestWriter::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

void RequestWriter::run() {
    std::vector<RequestRecord> batch;
    for (;;) {
        bool last = false;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait_for(lock, m_interval, [&] { return m_stopping; });
            batch.swap(m_queue);
            last = m_stopping;
        }
        if (!batch.empty()) {
            try {
                m_store->addRequests(m_runId, batch);
                std::lock_guard lock(m_mutex);
                m_committed += static_cast<std::int64_t>(batch.size());
            } catch (const std::exception& e) {
                std::lock_guard lock(m_mutex);
                m_error = e.what();
                m_dropped += static_cast<std::int64_t>(batch.size());
            }
            batch.clear();
        }
        if (last)
            return;
    }
}

} // namespace tierscope
