#include "loadgen/LoadRun.h"

#include "collectors/base/BearerToken.h"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace tierscope {

namespace {

// At most this many new requests per turn of the loop: a request's clock starts when it is
// handed to libcurl, so it must go out at once, not after thousands of others are set up
// (DESIGN.md: ramp connections up).
constexpr int kAddsPerTurn = 32;
// Chunks are timed by the kernel's receive timestamp of the data queued on their socket, else
// by when epoll reported the socket ready: then a small batch bounds how long data that
// arrives while a batch is worked off waits for the next stamp.
constexpr int kEventsPerTurn = 16;

int millisecondsUntil(StreamTransfer::Clock::time_point t, StreamTransfer::Clock::time_point now) {
    return static_cast<int>(
        std::max<long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count()));
}

// Rounded up: epoll's own timeout then never ends a wait before `t`.
int millisecondsAfter(StreamTransfer::Clock::time_point t, StreamTransfer::Clock::time_point now) {
    return static_cast<int>(
        std::max<long>(0, std::chrono::ceil<std::chrono::milliseconds>(t - now).count()));
}

double threadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double seconds(StreamTransfer::Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

} // namespace

LoadRun::LoadRun(const LoadGenerator::Options& options,
                 const std::vector<Conversation>& conversations, const WallClock& clock,
                 std::string url, LoadDispatch& dispatch, Place place,
                 LoadGenerator::RecordSink sink, OnProgress onProgress, ScheduleFeed* feed,
                 const LoadGenerator::EventObserver* observer)
    : m_options(options), m_conversations(conversations), m_clock(clock), m_url(std::move(url)),
      m_authorization(BearerToken::authorizationHeader(options.tokenEnvVar, "load")),
      m_dispatch(dispatch), m_place(place), m_sink(std::move(sink)),
      m_onProgress(std::move(onProgress)), m_feed(feed), m_observer(observer),
      m_epoll(epoll_create1(EPOLL_CLOEXEC)), m_multi(curl_multi_init()), m_random(options.seed),
      m_gaps(options.burstiness,
             options.rate > 0 ? 1.0 / (options.rate * options.burstiness) : 1.0) {
    if (m_epoll < 0 || !m_multi) {
        if (m_epoll >= 0)
            close(m_epoll);
        if (m_multi)
            curl_multi_cleanup(m_multi);
        throw std::runtime_error("the load generator could not set up its event loop");
    }
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETFUNCTION, onSocket);
    curl_multi_setopt(m_multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERFUNCTION, onTimer);
    curl_multi_setopt(m_multi, CURLMOPT_TIMERDATA, this);
    // Streams are long-lived: never queue one behind another on a shared connection.
    curl_multi_setopt(m_multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
}

LoadRun::~LoadRun() {
    // A handle still in the multi interface is taken out before its transfer frees it.
    for (auto& [easy, transfer] : m_active)
        curl_multi_remove_handle(m_multi, easy);
    m_active.clear();
    if (m_multi)
        curl_multi_cleanup(m_multi);
    if (m_epoll >= 0)
        close(m_epoll);
    if (m_dueTimer >= 0)
        close(m_dueTimer);
}

int LoadRun::onSocket(CURL*, curl_socket_t fd, int what, void* user, void* assigned) {
    auto* run = static_cast<LoadRun*>(user);
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(run->m_epoll, EPOLL_CTL_DEL, fd, nullptr);
        return 0;
    }
    epoll_event ev{};
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = fd;
    if (!assigned) {
        epoll_ctl(run->m_epoll, EPOLL_CTL_ADD, fd, &ev);
        curl_multi_assign(run->m_multi, fd, run);
    } else {
        epoll_ctl(run->m_epoll, EPOLL_CTL_MOD, fd, &ev);
    }
    return 0;
}

int LoadRun::onTimer(CURLM*, long timeoutMs, void* user) {
    auto* run = static_cast<LoadRun*>(user);
    if (timeoutMs < 0)
        run->m_timer.reset();
    else
        run->m_timer = Clock::now() + std::chrono::milliseconds(timeoutMs);
    return 0;
}

bool LoadRun::mayIssue(Clock::time_point now) const {
    if (m_dispatch.stopped() || m_dispatch.exhausted())
        return false;
    if (m_feed && (m_laneDone || m_feed->ended(m_place.loop)))
        return false;
    return m_options.duration.count() <= 0 || now - m_started < m_options.duration;
}

bool LoadRun::timerDue() const {
    return m_timer && Clock::now() >= *m_timer;
}

void LoadRun::driveTimeout() {
    if (!timerDue())
        return;
    m_timer.reset();
    m_readyAt = Clock::now();
    curl_multi_socket_action(m_multi, CURL_SOCKET_TIMEOUT, 0, &m_running);
}

std::string LoadRun::requestBody(const LoadGenerator::Options& options, const Conversation& c,
                                 const Cursor& cursor) {
    nlohmann::json body = {{"model", options.model},
                           {"max_tokens", c.maxTokens[cursor.round]},
                           {"temperature", 0},
                           {"stream", true},
                           {"stream_options", {{"include_usage", true}}}};
    if (options.api == "chat") {
        nlohmann::json messages = nlohmann::json::array();
        if (!c.system.empty())
            messages.push_back({{"role", "system"}, {"content", c.system}});
        for (const auto& [q, a] : cursor.history) {
            messages.push_back({{"role", "user"}, {"content", q}});
            messages.push_back({{"role", "assistant"}, {"content", a}});
        }
        messages.push_back({{"role", "user"}, {"content", c.questions[cursor.round]}});
        body["messages"] = messages;
    } else {
        std::string prompt = c.system;
        for (const auto& [q, a] : cursor.history)
            prompt += (prompt.empty() ? "" : " ") + q + " " + a;
        prompt += (prompt.empty() ? "" : " ") + c.questions[cursor.round];
        body["prompt"] = prompt;
    }
    if (options.ignoreEos)
        body["ignore_eos"] = true;
    body.update(options.extraBody);
    return body.dump();
}

void LoadRun::start(Cursor cursor, long issue, std::string body, bool due) {
    const int maxTokens = conversationOf(cursor).maxTokens[cursor.round];
    if (body.empty())
        body = requestBody(m_options, conversationOf(cursor), cursor);
    auto t = std::make_unique<StreamTransfer>(std::move(cursor), maxTokens, m_options.api == "chat",
                                              m_options.maxLineBytes, &m_readyAt);
    t->open(m_url, std::move(body), m_authorization,
            static_cast<long>(m_options.requestTimeout.count()), m_options.insecureTls);
    t->warmup = issue < m_options.warmup;
    t->record.index = issue - (t->warmup ? 0 : m_options.warmup);
    t->loop = m_place.loop;
    t->observer = m_observer;
    t->send = Clock::now();
    if (due) // how late the loop got to a send that was due
        m_load.sendLagS.add(std::max(0.0, seconds(t->send - t->cursor.scheduled)));
    if (!t->warmup && !m_firstMeasuredSend)
        m_firstMeasuredSend = t->send;
    t->record.scheduledNs = m_clock.toWallNs(t->cursor.scheduled);
    t->record.sendNs = m_clock.toWallNs(t->send);
    curl_multi_add_handle(m_multi, t->easy);
    // On the wire now: its clock has started, and setting up the next adds would delay it.
    driveTimeout();
    const bool warmup = t->warmup;
    m_active.emplace(t->easy, std::move(t));
    m_dispatch.issued();
    ++m_inFlight;
    ++m_load.requests;
    if (!warmup)
        m_dispatch.measuredStarted();
}

bool LoadRun::newConversation(Clock::time_point scheduled, bool due) {
    const auto claim = m_dispatch.claimConversation();
    if (!claim)
        return false;
    Cursor c;
    c.conversation = claim->conversation;
    c.scheduled = scheduled;
    start(std::move(c), claim->issue, {}, due);
    return true;
}

bool LoadRun::followUp() {
    const auto issue = m_dispatch.claim();
    if (!issue)
        return false;
    start(std::move(m_followUps.front()), *issue);
    m_followUps.pop_front();
    return true;
}

void LoadRun::nextArrival() {
    // Every loop draws the one gamma process of the seed and takes every loops-th arrival, so
    // together they send the rate's schedule, whatever the number of loops.
    for (int i = 0; i < m_place.loops; ++i)
        m_nextArrival += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(m_gaps(m_random)));
}

int LoadRun::issueDue(Clock::time_point now) {
    int adds = 0;
    const std::size_t lane = m_place.loop;
    if (m_feed) {
        for (auto due = m_feed->nextOffset(lane);
             due && now >= m_started + *due && mayIssue(now) && adds++ < kAddsPerTurn;
             due = m_feed->nextOffset(lane)) {
            auto ready = m_feed->pop(lane);
            const auto issue = static_cast<long>(ready.sequence);
            if (!m_dispatch.admits(issue)) { // the lane's later requests are later still
                m_laneDone = true;
                break;
            }
            Cursor c;
            c.owned = std::move(ready.conversation);
            c.scheduled = m_started + ready.offset;
            start(std::move(c), issue, std::move(ready.body), true);
        }
        return adds;
    }
    if (m_options.concurrency > 0) {
        while (m_inFlight < m_place.concurrency && mayIssue(now) && adds++ < kAddsPerTurn)
            if (!(m_followUps.empty() ? newConversation(now, false) : followUp()))
                break;
        return adds;
    }
    while (!m_followUps.empty() && mayIssue(now) && adds++ < kAddsPerTurn)
        if (!followUp())
            break;
    while (now >= m_nextArrival && mayIssue(now) && adds++ < kAddsPerTurn) {
        if (!newConversation(m_nextArrival, true))
            break;
        nextArrival();
    }
    return adds;
}

void LoadRun::armDue(Clock::time_point due) {
    if (due == m_armedDue)
        return;
    const auto since = due.time_since_epoch();
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since);
    itimerspec at{};
    at.it_value.tv_sec = static_cast<time_t>(seconds.count());
    at.it_value.tv_nsec = static_cast<long>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(since - seconds).count());
    if (at.it_value.tv_sec == 0 && at.it_value.tv_nsec == 0)
        at.it_value.tv_nsec = 1; // zero would disarm it
    timerfd_settime(m_dueTimer, TFD_TIMER_ABSTIME, &at, nullptr);
    m_armedDue = due;
}

int LoadRun::waitMs(Clock::time_point now, int adds) {
    int wait = adds > kAddsPerTurn ? 0 : 100; // more to issue: just drive the transfers
    if (m_timer)
        wait = std::min(wait, millisecondsUntil(*m_timer, now));
    if (m_options.rate > 0 && mayIssue(now))
        wait = std::min(wait, millisecondsUntil(m_nextArrival, now));
    // A feed that has nothing ready yet is behind: look again in a millisecond. Otherwise the
    // due timer wakes the loop when the next is due, to the microsecond, so the loop sleeps
    // until then instead of waking up to a millisecond early and polling (a millisecond a
    // request of CPU at 1,000 requests/s).
    if (m_feed && mayIssue(now)) {
        const auto due = m_feed->nextOffset(m_place.loop);
        if (!due) {
            wait = std::min(wait, 1);
        } else if (m_dueTimer >= 0) {
            armDue(m_started + *due);
            wait = std::min(wait, millisecondsAfter(m_started + *due, now));
        } else {
            wait = std::min(wait, millisecondsUntil(m_started + *due, now));
        }
    }
    return wait;
}

void LoadRun::finish(CURL* easy, CURLcode result) {
    auto it = m_active.find(easy);
    if (it == m_active.end())
        return;
    StreamTransfer& t = *it->second;
    const auto ended = t.end(result, m_readyAt);
    // Without a usage chunk the token count stays unknown: chunks are not tokens (a server
    // may send several tokens in one chunk).
    m_dispatch.finished(t.record.ok());
    if (t.record.ok()) {
        const Conversation& c = conversationOf(t.cursor);
        if (!t.cursor.owned && t.cursor.round + 1 < c.questions.size()) {
            Cursor next = t.cursor;
            next.history.emplace_back(c.questions[t.cursor.round], t.record.outputText);
            ++next.round;
            next.scheduled = ended;
            m_followUps.push_back(std::move(next));
        }
    }
    t.record.outputText.clear(); // history only; keeps memory flat over long runs
    if (!t.warmup) {
        m_lastMeasuredCompletion = std::max(m_lastMeasuredCompletion, ended);
        m_dispatch.measuredEnded();
        m_sink(std::move(t.record));
    }
    curl_multi_remove_handle(m_multi, easy);
    m_active.erase(it);
    --m_inFlight;
}

// Transfers that ended are finished right after the action that ended them, so their end is
// stamped with their own receive time, and a follow-up round is scheduled at once.
void LoadRun::finishDone() {
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(m_multi, &queued))
        if (msg->msg == CURLMSG_DONE)
            finish(msg->easy_handle, msg->data.result);
}

int LoadRun::serveReady(int waitMs) {
    epoll_event events[kEventsPerTurn];
    const int n = epoll_wait(m_epoll, events, kEventsPerTurn, waitMs);
    const auto polledAt = Clock::now();
    for (int i = 0; i < n; ++i) {
        if (events[i].data.fd == m_dueTimer) { // not libcurl's: only the wake-up
            std::uint64_t expirations = 0;
            (void)!read(m_dueTimer, &expirations, sizeof expirations);
            continue;
        }
        const auto arrived =
            events[i].events & EPOLLIN ? m_received.newestQueued(events[i].data.fd) : std::nullopt;
        m_readyAt = arrived.value_or(polledAt);
        if (arrived) // how late the loop got to data that was waiting for it
            m_load.readLagS.add(std::max(0.0, seconds(Clock::now() - *arrived)));
        const int mask = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                         (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                         (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(m_multi, events[i].data.fd, mask, &m_running);
        finishDone();
    }
    return n;
}

void LoadRun::run() {
    const double cpu0 = threadCpuSeconds();
    if (m_feed) {
        m_dueTimer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = m_dueTimer;
        if (m_dueTimer >= 0 && epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_dueTimer, &ev) != 0) {
            close(m_dueTimer);
            m_dueTimer = -1;
        }
    }
    m_started = m_dispatch.started();
    m_nextArrival = m_started;
    for (int i = 0; i < m_place.loop; ++i) // this loop's first arrival of the gamma process
        m_nextArrival += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(m_gaps(m_random)));
    auto lastProgress = Clock::now();
    for (;;) {
        const auto now = Clock::now();
        if (m_dispatch.failed()) // another loop's error ends the run at once
            break;
        const int adds = issueDue(now);
        if (m_inFlight == 0 && !mayIssue(now))
            break;
        int n = serveReady(waitMs(now, adds));
        // Sockets that became ready while this turn worked (a slow sink stalls it) are served
        // with their own stamps before the timer action could read them unstamped.
        for (int round = 0; n > 0 && round < 8 && timerDue(); ++round)
            n = serveReady(0);
        driveTimeout();
        finishDone();
        if (m_onProgress && Clock::now() - lastProgress >= std::chrono::seconds(1)) {
            lastProgress = Clock::now();
            m_onProgress(m_dispatch.progress());
        }
    }
    if (m_onProgress)
        m_onProgress(m_dispatch.progress());
    m_load.cpuS = threadCpuSeconds() - cpu0;
    m_load.wallS = seconds(Clock::now() - m_started);
}

} // namespace tierscope
