#include "loadgen/LoadDispatch.h"

namespace tierscope {

namespace {

// A full batch wakes the taker at once; below it, the taker looks every `wait`, so a loop pays
// no wake-up per finished request.
constexpr std::size_t kWakeBatch = 256;

} // namespace

LoadDispatch::LoadDispatch(long limit, std::size_t conversations, int loops,
                           const std::atomic<bool>* cancel)
    : m_limit(limit), m_conversations(conversations), m_loops(loops), m_cancel(cancel),
      m_allClaimed(limit == 0) {}

std::optional<long> LoadDispatch::claim() {
    std::lock_guard lock(m_claimMutex);
    if (m_limit >= 0 && m_nextIssue >= m_limit)
        return std::nullopt;
    const long issue = m_nextIssue++;
    if (m_limit >= 0 && m_nextIssue >= m_limit)
        m_allClaimed = true;
    return issue;
}

std::optional<LoadDispatch::Claim> LoadDispatch::claimConversation() {
    std::lock_guard lock(m_claimMutex);
    if (m_conversations == 0 || (m_limit >= 0 && m_nextIssue >= m_limit))
        return std::nullopt;
    // Number and conversation together: the first request issued starts conversation 0, as in
    // one loop, whichever loop issues it.
    Claim c{m_nextIssue++, m_nextConversation++ % m_conversations};
    if (m_limit >= 0 && m_nextIssue >= m_limit)
        m_allClaimed = true;
    return c;
}

bool LoadDispatch::exhausted() const {
    return m_allClaimed.load(std::memory_order_relaxed);
}

bool LoadDispatch::stopped() const {
    return failed() || (m_cancel && m_cancel->load());
}

void LoadDispatch::fail(std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    if (!m_error)
        m_error = std::move(error);
    m_failed = true;
}

void LoadDispatch::rethrow() {
    std::lock_guard lock(m_mutex);
    if (m_error)
        std::rethrow_exception(m_error);
}

void LoadDispatch::measuredStarted() {
    const int now = m_measuredInFlight.fetch_add(1, std::memory_order_relaxed) + 1;
    int peak = m_maxConcurrent.load(std::memory_order_relaxed);
    while (now > peak && !m_maxConcurrent.compare_exchange_weak(peak, now))
        ;
}

LoadGenerator::Progress LoadDispatch::progress() const {
    LoadGenerator::Progress p;
    p.issued = m_issued;
    p.completed = m_completed;
    p.failed = m_failedRequests;
    p.inFlight = p.issued - p.completed - p.failed;
    return p;
}

void LoadDispatch::deliver(RequestRecord&& record) {
    std::lock_guard lock(m_mutex);
    m_records.push_back(std::move(record));
    if (m_records.size() == kWakeBatch)
        m_changed.notify_one();
}

void LoadDispatch::loopDone() {
    {
        std::lock_guard lock(m_mutex);
        ++m_loopsDone;
    }
    m_changed.notify_one();
}

bool LoadDispatch::take(std::vector<RequestRecord>& out, std::chrono::milliseconds wait) {
    std::unique_lock lock(m_mutex);
    m_changed.wait_for(lock, wait,
                       [&] { return m_records.size() >= kWakeBatch || m_loopsDone == m_loops; });
    out.swap(m_records);
    m_records.clear();
    return !(out.empty() && m_loopsDone == m_loops);
}

} // namespace tierscope
