#pragma once

#include "loadgen/LoadGenerator.h"
#include "loadgen/ReceiveTimestamp.h"
#include "loadgen/ScheduleFeed.h"
#include "loadgen/StreamTransfer.h"

#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <unordered_map>

namespace tierscope {

// One execution of LoadGenerator::run: the epoll loop that drives libcurl's multi interface,
// what is in flight, and the figures of the run. Requests are issued, their data is read with
// its arrival stamp, and a finished request goes to the sink as soon as libcurl reports it.
class LoadRun {
  public:
    using Clock = StreamTransfer::Clock;
    using Cursor = StreamTransfer::Cursor;
    using OnProgress = std::function<void(const LoadGenerator::Progress&)>;

    LoadRun(const LoadGenerator::Options& options, const std::vector<Conversation>& conversations,
            const WallClock& clock, std::string url, const LoadGenerator::RecordSink& sink,
            OnProgress onProgress, const std::atomic<bool>* cancel,
            RequestSchedule* schedule = nullptr);
    ~LoadRun();
    LoadRun(const LoadRun&) = delete;
    LoadRun& operator=(const LoadRun&) = delete;

    void run();

    // From the first measured send to the last measured completion (LoadGenerator::durationS).
    double durationS() const;
    int maxConcurrent() const { return m_maxConcurrent; }

  private:
    static int onSocket(CURL*, curl_socket_t fd, int what, void* user, void* assigned);
    static int onTimer(CURLM*, long timeoutMs, void* user);

    const Conversation& conversationOf(const Cursor& cursor) const {
        return cursor.owned ? *cursor.owned : m_conversations[cursor.conversation];
    }
    bool mayIssue(Clock::time_point now) const;
    bool timerDue() const;
    // A timer action may read any socket (libcurl polls its transfers itself), so what it reads
    // can only be stamped "now": callers serve the sockets that are ready first.
    void driveTimeout();
    std::string requestBody(const Cursor& cursor) const;
    // `body`: made ahead (a scheduled request's); empty: made now.
    void start(Cursor cursor, std::string body = {});
    void newConversation(Clock::time_point scheduled);
    // Issues what is due, follow-up rounds first; returns how many were added this turn.
    int issueDue(Clock::time_point now);
    // How long the loop may wait for data before something else is due.
    int waitMs(Clock::time_point now, int adds);
    void armDue(Clock::time_point due); // the due timer, to fire at `due`
    void finish(CURL* easy, CURLcode result);
    void finishDone();
    int serveReady(int waitMs);

    const LoadGenerator::Options& m_options;
    const std::vector<Conversation>& m_conversations;
    const WallClock& m_clock;
    const std::string m_url;
    const std::string m_authorization;
    const LoadGenerator::RecordSink& m_sink;
    OnProgress m_onProgress;
    const std::atomic<bool>* m_cancel;
    RequestSchedule* m_schedule;
    // The schedule's requests, made ready on the feed's thread so that sending one costs only
    // its hand-over to libcurl.
    std::unique_ptr<ScheduleFeed> m_feed;
    int m_dueTimer = -1; // a timerfd in the epoll set, armed for the next scheduled send
    Clock::time_point m_armedDue{};

    int m_epoll = -1;
    CURLM* m_multi = nullptr;
    int m_running = 0;
    std::optional<Clock::time_point> m_timer;
    Clock::time_point m_readyAt;
    ReceiveTimestamp m_received;

    std::deque<Cursor> m_followUps;
    std::unordered_map<CURL*, std::unique_ptr<StreamTransfer>> m_active;
    LoadGenerator::Progress m_progress;
    std::size_t m_nextConversation = 0;
    Clock::time_point m_started;
    long m_limit = -1;
    std::mt19937_64 m_random;
    std::gamma_distribution<double> m_gaps;
    Clock::time_point m_nextArrival;
    // The throughput clock runs from the first measured send to the last measured completion,
    // as vLLM's starts after its warm-ups: warm-ups neither start nor extend it.
    std::optional<Clock::time_point> m_firstMeasuredSend;
    Clock::time_point m_lastMeasuredCompletion{};
    long m_measuredInFlight = 0;
    int m_maxConcurrent = 0;
};

} // namespace tierscope
