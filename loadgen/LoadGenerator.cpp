#include "loadgen/LoadGenerator.h"

#include "collectors/base/BearerToken.h"
#include "core/util/Redaction.h"
#include "loadgen/ReceiveTimestamp.h"
#include "loadgen/SseParser.h"
#include "loadgen/StreamChunk.h"

#include <cctype>
#include <curl/curl.h>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <spdlog/spdlog.h>
#include <stdexcept>
#include <sys/epoll.h>
#include <unistd.h>
#include <unordered_map>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// Where a conversation stands: which round is next, and what was said so far.
struct Cursor {
    std::size_t conversation = 0;
    std::size_t round = 0;
    std::vector<std::pair<std::string, std::string>> history; // question, answer
    Clock::time_point scheduled;
};

struct Transfer {
    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string body;
    RequestRecord record;
    Cursor cursor;
    bool warmup = false;
    Clock::time_point send;
    Clock::time_point lastChunk;
    // When the data being read reached this host (the kernel's receive timestamp, else when
    // the socket was seen readable): chunks are timed by this, not by when the loop got around
    // to parsing them, so a busy client does not add its own queueing to TTFT and ITL.
    const Clock::time_point* readyAt = nullptr;
    // When this transfer's newest data arrived: its end, as the end of a stream is the data
    // that closes it, not when the connection's close was seen or another socket was served.
    std::optional<Clock::time_point> lastReceived;
    int tokenChunks = 0;
    long long maxChunks = 0; // past this, the server ignores max_tokens: the request is ended
    int maxTokens = 0;
    bool overrun = false;
    std::string rawStart; // the first bytes, to explain a non-SSE error reply
    std::unique_ptr<SseParser> parser;
    bool chat = false;
};

constexpr std::size_t kMaxAnswerBytes = 1 << 20;
// A stream has at most one chunk per token plus a few without text (role, usage); one that
// runs far past max_tokens would otherwise grow its gaps without bound (262 MB in 15 s).
constexpr int kChunksPerToken = 4;
constexpr int kChunkSlack = 64;
constexpr int kAddsPerTurn = 32;

// An arrival (a chunk with a choice, StreamChunk, as vLLM's client counts them): the first one
// is the first token (TTFT), each later one adds a gap, the last one ends the request. Only the
// answer goes into the history.
void onToken(Transfer& t, const StreamChunk& chunk, Clock::time_point now) {
    if (!chunk.choice || t.overrun)
        return;
    if (!t.record.ttftS)
        t.record.ttftS = seconds(now - t.send);
    else
        t.record.itlS.push_back(seconds(now - t.lastChunk));
    t.lastChunk = now;
    if (++t.tokenChunks > t.maxChunks && !t.overrun) {
        t.overrun = true;
        t.record.error = "the server sent more than " + std::to_string(t.maxChunks) +
                         " token chunks for max_tokens " + std::to_string(t.maxTokens) +
                         ": it ignores max_tokens; the request was ended";
    }
    if (t.record.outputText.size() < kMaxAnswerBytes)
        t.record.outputText += chunk.text;
}

void onEvent(Transfer& t, std::string_view data) {
    auto chunk = StreamChunk::parse(data, t.chat, !t.record.responseId.empty());
    if (chunk.done)
        return; // the end of the stream says nothing more: the last arrival ended the request
    if (!chunk.error.empty() && t.record.error.empty())
        t.record.error = std::move(chunk.error);
    if (t.record.responseId.empty() && chunk.id)
        t.record.responseId = std::move(*chunk.id);
    if (chunk.promptTokens)
        t.record.promptTokens = chunk.promptTokens;
    if (chunk.outputTokens)
        t.record.outputTokens = chunk.outputTokens;
    onToken(t, chunk, *t.readyAt);
}

std::size_t onData(char* data, std::size_t size, std::size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t n = size * count;
    t->lastReceived = *t->readyAt;
    if (t->rawStart.size() < 512)
        t->rawStart.append(data, std::min(n, 512 - t->rawStart.size()));
    if (!t->parser->feed(std::string_view(data, n))) {
        t->record.error = t->parser->error();
        return 0; // abort: the stream is unusable
    }
    return t->overrun ? 0 : n;
}

struct Loop {
    int epoll = -1;
    CURLM* multi = nullptr;
    std::optional<Clock::time_point> timer;
    Clock::time_point readyAt;
    ReceiveTimestamp received;
};

int onSocketOptions(void*, curl_socket_t fd, curlsocktype purpose) {
    if (purpose == CURLSOCKTYPE_IPCXN)
        ReceiveTimestamp::enable(fd); // without it, chunks are timed when seen readable
    return CURL_SOCKOPT_OK;
}

int onSocket(CURL*, curl_socket_t fd, int what, void* user, void* assigned) {
    auto* loop = static_cast<Loop*>(user);
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(loop->epoll, EPOLL_CTL_DEL, fd, nullptr);
        return 0;
    }
    epoll_event ev{};
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = fd;
    if (!assigned) {
        epoll_ctl(loop->epoll, EPOLL_CTL_ADD, fd, &ev);
        curl_multi_assign(loop->multi, fd, loop);
    } else {
        epoll_ctl(loop->epoll, EPOLL_CTL_MOD, fd, &ev);
    }
    return 0;
}

int onTimer(CURLM*, long timeoutMs, void* user) {
    auto* loop = static_cast<Loop*>(user);
    if (timeoutMs < 0)
        loop->timer.reset();
    else
        loop->timer = Clock::now() + std::chrono::milliseconds(timeoutMs);
    return 0;
}

} // namespace

bool LoadGenerator::httpUrl(const std::string& url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return false;
    std::string name = url.substr(0, scheme);
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return (name == "http" || name == "https") && url.size() > scheme + 3;
}

std::string LoadGenerator::redacted(const std::string& url) {
    return Redaction::url(url);
}

LoadGenerator::LoadGenerator(Options options, std::vector<Conversation> conversations,
                             const WallClock& clock)
    : m_options(std::move(options)), m_conversations(std::move(conversations)), m_clock(clock) {
    if (!httpUrl(m_options.url))
        throw std::invalid_argument("the load generator's URL must be http:// or https://, not " +
                                    redacted(m_options.url));
    if (m_conversations.empty())
        throw std::invalid_argument("the load generator needs at least one prompt");
    for (const auto& c : m_conversations)
        if (c.questions.empty() || c.questions.size() != c.maxTokens.size())
            throw std::invalid_argument("every conversation needs at least one round, each with "
                                        "its max_tokens");
    if ((m_options.concurrency > 0) == (m_options.rate > 0))
        throw std::invalid_argument("give exactly one of concurrency and rate");
    if (m_options.requests <= 0 && m_options.duration.count() <= 0)
        throw std::invalid_argument("give a number of requests or a duration");
}

std::string LoadGenerator::endpoint() const {
    if (m_options.url.find("/v1/") != std::string::npos)
        return m_options.url;
    std::string base = m_options.url;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    return base + (m_options.api == "chat" ? "/v1/chat/completions" : "/v1/completions");
}

std::string LoadGenerator::displayEndpoint() const {
    return redacted(endpoint());
}

std::vector<RequestRecord>
LoadGenerator::run(const std::function<void(const Progress&)>& onProgress,
                   const std::atomic<bool>* cancel) {
    std::vector<RequestRecord> records;
    run([&](RequestRecord&& r) { records.push_back(std::move(r)); }, onProgress, cancel);
    return records;
}

void LoadGenerator::run(const RecordSink& sink,
                        const std::function<void(const Progress&)>& onProgress,
                        const std::atomic<bool>* cancel) {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    (void)initialised;
    const bool chat = m_options.api == "chat";
    const std::string url = endpoint();
    const std::string authorization =
        BearerToken::authorizationHeader(m_options.tokenEnvVar, "load");

    Loop loop;
    loop.epoll = epoll_create1(EPOLL_CLOEXEC);
    loop.multi = curl_multi_init();
    curl_multi_setopt(loop.multi, CURLMOPT_SOCKETFUNCTION, onSocket);
    curl_multi_setopt(loop.multi, CURLMOPT_SOCKETDATA, &loop);
    curl_multi_setopt(loop.multi, CURLMOPT_TIMERFUNCTION, onTimer);
    curl_multi_setopt(loop.multi, CURLMOPT_TIMERDATA, &loop);
    // Streams are long-lived: never queue one behind another on a shared connection.
    curl_multi_setopt(loop.multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);

    std::deque<Cursor> followUps;
    std::unordered_map<CURL*, std::unique_ptr<Transfer>> active;
    Progress progress;
    std::size_t nextConversation = 0;
    const auto started = Clock::now();
    auto lastProgress = started;
    // The throughput clock runs from the first measured send to the last measured completion,
    // as vLLM's starts after its warm-ups: warm-ups neither start nor extend it.
    std::optional<Clock::time_point> firstMeasuredSend;
    Clock::time_point lastMeasuredCompletion{};
    long measuredInFlight = 0;

    std::mt19937_64 random(m_options.seed);
    std::gamma_distribution<double> gaps(
        m_options.burstiness,
        m_options.rate > 0 ? 1.0 / (m_options.rate * m_options.burstiness) : 1.0);
    Clock::time_point nextArrival = started;
    const long limit = m_options.requests > 0 ? m_options.requests + m_options.warmup : -1;

    auto mayIssue = [&](Clock::time_point now) {
        if (cancel && cancel->load())
            return false;
        if (limit >= 0 && progress.issued >= limit)
            return false;
        return m_options.duration.count() <= 0 || now - started < m_options.duration;
    };

    int running = 0;
    auto timerDue = [&] { return loop.timer && Clock::now() >= *loop.timer; };
    // A timer action may read any socket (libcurl polls its transfers itself), so what it reads
    // can only be stamped "now": callers serve the sockets that are ready first.
    auto driveTimeout = [&] {
        if (!timerDue())
            return;
        loop.timer.reset();
        loop.readyAt = Clock::now();
        curl_multi_socket_action(loop.multi, CURL_SOCKET_TIMEOUT, 0, &running);
    };
    auto start = [&](Cursor cursor) {
        const Conversation& c = m_conversations[cursor.conversation];
        nlohmann::json body = {{"model", m_options.model},
                               {"max_tokens", c.maxTokens[cursor.round]},
                               {"temperature", 0},
                               {"stream", true},
                               {"stream_options", {{"include_usage", true}}}};
        if (chat) {
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
        auto t = std::make_unique<Transfer>();
        Transfer* raw = t.get();
        t->chat = chat;
        t->maxTokens = c.maxTokens[cursor.round];
        t->maxChunks = static_cast<long long>(t->maxTokens) * kChunksPerToken + kChunkSlack;
        t->readyAt = &loop.readyAt;
        t->cursor = std::move(cursor);
        t->body = body.dump();
        t->warmup = progress.issued < m_options.warmup;
        t->record.index = progress.issued - (t->warmup ? 0 : m_options.warmup);
        t->parser = std::make_unique<SseParser>([raw](std::string_view d) { onEvent(*raw, d); },
                                                m_options.maxLineBytes);
        t->headers = curl_slist_append(nullptr, "Content-Type: application/json");
        // libcurl otherwise sends "Expect: 100-continue" for bodies over 1 KiB and holds the body
        // back for up to a second: that wait would be counted as TTFT.
        t->headers = curl_slist_append(t->headers, "Expect:");
        if (!authorization.empty())
            t->headers = curl_slist_append(t->headers, authorization.c_str());
        t->easy = curl_easy_init();
        curl_easy_setopt(t->easy, CURLOPT_URL, url.c_str());
        // Never file://, gopher:// and the rest, not even through a redirect.
        curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(t->easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, t->body.c_str());
        curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(t->body.size()));
        curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
        curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, onData);
        curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, raw);
        curl_easy_setopt(t->easy, CURLOPT_PRIVATE, raw);
        curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS,
                         static_cast<long>(m_options.requestTimeout.count()));
        curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(t->easy, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(t->easy, CURLOPT_SOCKOPTFUNCTION, onSocketOptions);
        curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYPEER, m_options.insecureTls ? 0L : 1L);
        curl_easy_setopt(t->easy, CURLOPT_SSL_VERIFYHOST, m_options.insecureTls ? 0L : 2L);
        t->send = Clock::now();
        if (!t->warmup && !firstMeasuredSend)
            firstMeasuredSend = t->send;
        t->record.scheduledNs = m_clock.toWallNs(t->cursor.scheduled);
        t->record.sendNs = m_clock.toWallNs(t->send);
        curl_multi_add_handle(loop.multi, t->easy);
        // On the wire now: its clock has started, and setting up the next adds would delay it.
        driveTimeout();
        active.emplace(t->easy, std::move(t));
        ++progress.issued;
        ++progress.inFlight;
        if (!raw->warmup)
            m_maxConcurrent = std::max(m_maxConcurrent, static_cast<int>(++measuredInFlight));
    };

    auto newConversation = [&](Clock::time_point scheduled) {
        Cursor c;
        c.conversation = nextConversation++ % m_conversations.size();
        c.scheduled = scheduled;
        start(std::move(c));
    };

    auto finish = [&](CURL* easy, CURLcode result) {
        auto it = active.find(easy);
        if (it == active.end())
            return;
        Transfer& t = *it->second;
        const bool cutShort = result == CURLE_OK && !t.parser->finish();
        // A stream ends with its last arrival, as vLLM's client stamps it: a usage chunk or a
        // [DONE] sent late is no part of the request's latency. A failure (a timeout, a reset)
        // ends when it was seen.
        const bool arrived = t.record.ttftS.has_value();
        const auto now = result == CURLE_OK && arrived          ? t.lastChunk
                         : result == CURLE_OK && t.lastReceived ? *t.lastReceived
                                                                : loop.readyAt;
        long status = 0;
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
        t.record.httpStatus = static_cast<int>(status);
        if (t.record.error.empty()) {
            if (result != CURLE_OK)
                t.record.error = std::string(curl_easy_strerror(result)) + " after " +
                                 std::to_string(t.tokenChunks) + " token chunks";
            else if (status != 200)
                t.record.error =
                    "HTTP " + std::to_string(status) + ": " + t.rawStart.substr(0, 200);
            else if (!t.record.ttftS)
                t.record.error = "no token received";
            // Stricter than vLLM's client, which drops a cut line silently: a stream that ends
            // inside a line was cut (a reset that reached curl as a plain close).
            else if (cutShort)
                t.record.error = "the stream ended in the middle of a line after " +
                                 std::to_string(t.tokenChunks) + " token chunks";
            // A stream that closes cleanly after its tokens but without [DONE] succeeds, as in
            // vLLM's client; a cut one fails above, with curl's error.
        }
        t.record.e2eS = seconds(now - t.send);
        const double lateness = seconds(t.send - t.cursor.scheduled);
        if (t.record.ttftS)
            t.record.ttftScheduledS = *t.record.ttftS + lateness;
        t.record.e2eScheduledS = *t.record.e2eS + lateness;
        // Without a usage chunk the token count stays unknown: chunks are not tokens (a server
        // may send several tokens in one chunk).
        if (t.record.ok()) {
            ++progress.completed;
            const Conversation& c = m_conversations[t.cursor.conversation];
            if (t.cursor.round + 1 < c.questions.size()) {
                Cursor next = t.cursor;
                next.history.emplace_back(c.questions[t.cursor.round], t.record.outputText);
                ++next.round;
                next.scheduled = now;
                followUps.push_back(std::move(next));
            }
        } else {
            ++progress.failed;
        }
        t.record.outputText.clear(); // history only; keeps memory flat over long runs
        if (!t.warmup) {
            lastMeasuredCompletion = std::max(lastMeasuredCompletion, now);
            --measuredInFlight;
            sink(std::move(t.record));
        }
        curl_multi_remove_handle(loop.multi, easy);
        curl_slist_free_all(t.headers);
        curl_easy_cleanup(easy);
        active.erase(it);
        --progress.inFlight;
    };

    // Chunks are timed by the kernel's receive timestamp of the data queued on their socket,
    // else by when epoll reported the socket ready: then a small batch bounds how long data
    // that arrives while a batch is worked off waits for the next stamp.
    constexpr int kEventsPerTurn = 16;
    epoll_event events[kEventsPerTurn];
    // Transfers that ended are finished right after the action that ended them, so their end
    // is stamped with their own receive time (Transfer::lastReceived), and a follow-up round
    // is scheduled at once.
    auto finishDone = [&] {
        int queued = 0;
        while (CURLMsg* msg = curl_multi_info_read(loop.multi, &queued))
            if (msg->msg == CURLMSG_DONE)
                finish(msg->easy_handle, msg->data.result);
    };
    auto serveReady = [&](int waitMs) {
        const int n = epoll_wait(loop.epoll, events, kEventsPerTurn, waitMs);
        const auto polledAt = Clock::now();
        for (int i = 0; i < n; ++i) {
            loop.readyAt = events[i].events & EPOLLIN
                               ? loop.received.newestQueued(events[i].data.fd).value_or(polledAt)
                               : polledAt;
            const int mask = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                             (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                             (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(loop.multi, events[i].data.fd, mask, &running);
            finishDone();
        }
        return n;
    };
    for (;;) {
        auto now = Clock::now();
        // Issue what is due: follow-up rounds first, then new conversations.
        // At most kAddsPerTurn new requests per turn of the loop: a request's clock starts when
        // it is handed to libcurl, so it must go out at once, not after thousands of others are
        // set up (DESIGN.md: ramp connections up).
        int adds = 0;
        if (m_options.concurrency > 0) {
            while (progress.inFlight < m_options.concurrency && mayIssue(now) &&
                   adds++ < kAddsPerTurn) {
                if (!followUps.empty()) {
                    start(std::move(followUps.front()));
                    followUps.pop_front();
                } else {
                    newConversation(now);
                }
            }
        } else {
            while (!followUps.empty() && mayIssue(now) && adds++ < kAddsPerTurn) {
                start(std::move(followUps.front()));
                followUps.pop_front();
            }
            while (now >= nextArrival && mayIssue(now) && adds++ < kAddsPerTurn) {
                newConversation(nextArrival);
                nextArrival += std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(gaps(random)));
            }
        }
        if (progress.inFlight == 0 && !mayIssue(now))
            break;

        int waitMs = adds > kAddsPerTurn ? 0 : 100; // more to issue: just drive the transfers
        if (loop.timer)
            waitMs = std::min(
                waitMs,
                static_cast<int>(std::max<long>(
                    0, std::chrono::duration_cast<std::chrono::milliseconds>(*loop.timer - now)
                           .count())));
        if (m_options.rate > 0 && mayIssue(now))
            waitMs = std::min(
                waitMs,
                static_cast<int>(std::max<long>(
                    0, std::chrono::duration_cast<std::chrono::milliseconds>(nextArrival - now)
                           .count())));
        int n = serveReady(waitMs);
        // Sockets that became ready while this turn worked (a slow sink stalls it) are served
        // with their own stamps before the timer action could read them unstamped.
        for (int round = 0; n > 0 && round < 8 && timerDue(); ++round)
            n = serveReady(0);
        driveTimeout();
        finishDone();
        if (onProgress && Clock::now() - lastProgress >= std::chrono::seconds(1)) {
            lastProgress = Clock::now();
            onProgress(progress);
        }
    }
    m_durationS = firstMeasuredSend && lastMeasuredCompletion > *firstMeasuredSend
                      ? seconds(lastMeasuredCompletion - *firstMeasuredSend)
                      : 0.0;
    curl_multi_cleanup(loop.multi);
    close(loop.epoll);
    if (onProgress)
        onProgress(progress);
}

} // namespace tierscope
