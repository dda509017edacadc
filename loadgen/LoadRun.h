#pragma once

#include "loadgen/ClientSaturation.h"
#include "loadgen/LoadDispatch.h"
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

// One event loop of LoadGenerator::run, on its own thread: the epoll loop that drives its own
// libcurl multi interface, what it has in flight, and its figures. Requests are claimed from
// the run's LoadDispatch, issued, their data read with its arrival stamp, and a finished
// request goes to `sink` as soon as libcurl reports it. A request stays on the loop that
// issued it, and so does a conversation's next round.
class LoadRun {
  public:
    using Clock = StreamTransfer::Clock;
    using Cursor = StreamTransfer::Cursor;
    using OnProgress = std::function<void(const LoadGenerator::Progress&)>;
    // The loop's place among `loops`: it takes the rate's arrivals loop, loop + loops, ... and
    // the feed's lane `loop`; `concurrency`: its share of a closed loop's requests in flight.
    struct Place {
        int loop = 0;
        int loops = 1;
        int concurrency = 0;
    };

    LoadRun(const LoadGenerator::Options& options, const std::vector<Conversation>& conversations,
            const WallClock& clock, std::string url, LoadDispatch& dispatch, Place place,
            LoadGenerator::RecordSink sink, OnProgress onProgress, ScheduleFeed* feed,
            const LoadGenerator::EventObserver* observer = nullptr);
    ~LoadRun();
    LoadRun(const LoadRun&) = delete;
    LoadRun& operator=(const LoadRun&) = delete;

    void run();

    // The loop's first measured send and last measured completion (LoadGenerator::durationS).
    const std::optional<Clock::time_point>& firstMeasuredSend() const {
        return m_firstMeasuredSend;
    }
    Clock::time_point lastMeasuredCompletion() const { return m_lastMeasuredCompletion; }
    const ClientSaturation::Loop& load() const { return m_load; }

    static std::string requestBody(const LoadGenerator::Options& options, const Conversation& c,
                                   const Cursor& cursor);

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
    // `issue`: the request's number (LoadDispatch); `body`: made ahead (a scheduled request's),
    // empty: made now; `due`: sent at its scheduled time, so its lateness is the loop's lag.
    void start(Cursor cursor, long issue, std::string body = {}, bool due = false);
    // False when the limit left no request to issue.
    bool newConversation(Clock::time_point scheduled, bool due);
    bool followUp();
    void nextArrival(); // the loop's next arrival of the rate's gamma process
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
    LoadDispatch& m_dispatch;
    const Place m_place;
    LoadGenerator::RecordSink m_sink;
    OnProgress m_onProgress;
    // The schedule's requests, made ready on the feed's thread so that sending one costs only
    // its hand-over to libcurl; this loop reads lane m_place.loop.
    ScheduleFeed* m_feed;
    bool m_laneDone = false; // the lane's next request is past the limit
    const LoadGenerator::EventObserver* m_observer;
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
    long m_inFlight = 0; // this loop's
    Clock::time_point m_started;
    std::mt19937_64 m_random;
    std::gamma_distribution<double> m_gaps;
    Clock::time_point m_nextArrival;
    // The throughput clock runs from the first measured send to the last measured completion,
    // as vLLM's starts after its warm-ups: warm-ups neither start nor extend it.
    std::optional<Clock::time_point> m_firstMeasuredSend;
    Clock::time_point m_lastMeasuredCompletion{};
    ClientSaturation::Loop m_load;
};

} // namespace tierscope
