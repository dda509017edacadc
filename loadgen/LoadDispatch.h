#pragma once

#include "core/model/RequestRecord.h"
#include "loadgen/LoadGenerator.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

namespace tierscope {

// What the event loops of one load run share (LoadRun, one per loop): the numbering of the
// requests (the first `warmup` issued are the warm-ups, the limit counts them all), which
// conversation a new request starts, the measured requests in flight, the counts progress
// shows, the run's start, and the finished records on their way from the loops to the sink,
// which runs on the thread that called LoadGenerator::run. Each request is issued, read and
// finished by the loop that claimed it: only the claim and the hand-over are shared.
class LoadDispatch {
  public:
    using Clock = std::chrono::steady_clock;
    struct Claim {
        long issue = 0;               // from 0 in the order the loops claimed them
        std::size_t conversation = 0; // a new conversation's index, round robin
    };

    // `limit`: requests to issue, warm-ups included; negative: no limit.
    LoadDispatch(long limit, std::size_t conversations, int loops, const std::atomic<bool>* cancel);

    std::optional<long> claim(); // a follow-up's number
    // A scheduled request's number is its place in the schedule, so records match the trace's
    // rows whichever loop sends them: false when the limit leaves it out.
    bool admits(long issue) const { return m_limit < 0 || issue < m_limit; }
    std::optional<Claim> claimConversation(); // a new conversation's number and index
    bool exhausted() const;                   // every request of the limit was claimed
    // Cancelled, or a loop failed: no loop issues more.
    bool stopped() const;
    // A loop's (or the sink's) error: every loop ends at once; rethrown by rethrow().
    void fail(std::exception_ptr error);
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    void rethrow();

    void start() { m_started = Clock::now(); }
    Clock::time_point started() const { return m_started; }

    void measuredStarted();
    void measuredEnded() { m_measuredInFlight.fetch_sub(1, std::memory_order_relaxed); }
    int maxConcurrent() const { return m_maxConcurrent.load(); }

    void issued() { ++m_issued; }
    void finished(bool ok) { ++(ok ? m_completed : m_failedRequests); }
    LoadGenerator::Progress progress() const;

    // A loop hands a finished measured request over; the caller's thread takes them.
    void deliver(RequestRecord&& record);
    void loopDone();
    // Waits up to `wait` for finished records and moves them into `out`; false once every loop
    // is done and every record was taken.
    bool take(std::vector<RequestRecord>& out, std::chrono::milliseconds wait);

  private:
    const long m_limit;
    const std::size_t m_conversations;
    const int m_loops;
    const std::atomic<bool>* m_cancel;
    Clock::time_point m_started;

    std::mutex m_claimMutex; // guards the two counters below
    long m_nextIssue = 0;
    std::size_t m_nextConversation = 0;
    std::atomic<bool> m_allClaimed{false};

    std::atomic<int> m_measuredInFlight{0}, m_maxConcurrent{0};
    std::atomic<long> m_issued{0}, m_completed{0}, m_failedRequests{0};

    std::atomic<bool> m_failed{false};
    std::mutex m_mutex; // guards everything below
    std::condition_variable m_changed;
    std::exception_ptr m_error;
    std::vector<RequestRecord> m_records;
    int m_loopsDone = 0;
};

} // namespace tierscope
