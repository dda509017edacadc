#pragma once

#include "core/model/RequestRecord.h"
#include "loadgen/Conversation.h"
#include "loadgen/SseParser.h"

#include <chrono>
#include <curl/curl.h>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tierscope {

struct StreamChunk;

// One streamed request in flight: its libcurl handle, the record it fills as chunks arrive and
// where its conversation stands. The load generator's loop owns it from the send to the end.
struct StreamTransfer {
    using Clock = std::chrono::steady_clock;
    // Told of each piece of a stream's data on the thread that read it: which loop owns the
    // transfer and its request's index (tests check that one loop reads each stream).
    using EventObserver = std::function<void(int loop, long request)>;

    // Where a conversation stands: which round is next, and what was said so far.
    struct Cursor {
        std::size_t conversation = 0;
        std::size_t round = 0;
        std::vector<std::pair<std::string, std::string>> history; // question, answer
        Clock::time_point scheduled;
        // A scheduled request's own conversation (a trace replay), which no list holds;
        // otherwise the generator's conversations[conversation].
        std::shared_ptr<const Conversation> owned;
    };

    // `readyAt` is the loop's stamp of the data being read: when it reached this host (the
    // kernel's receive timestamp, else when the socket was seen readable). Chunks are timed by
    // it, not by when the loop got around to parsing them, so a busy client does not add its
    // own queueing to TTFT and ITL.
    StreamTransfer(Cursor cursor, int maxTokens, bool chat, std::size_t maxLineBytes,
                   const Clock::time_point* readyAt);
    ~StreamTransfer();
    StreamTransfer(const StreamTransfer&) = delete;
    StreamTransfer& operator=(const StreamTransfer&) = delete;

    // Creates the easy handle that POSTs `body` to `url`; the transfer is its private pointer.
    void open(const std::string& url, std::string requestBody, const std::string& authorization,
              long timeoutMs, bool insecureTls);
    // libcurl says the transfer is over: fills the record's error, HTTP status and end-to-end
    // times, and returns when the request ended.
    Clock::time_point end(CURLcode result, Clock::time_point seenAt);

    CURL* easy = nullptr;
    RequestRecord record;
    Cursor cursor;
    bool warmup = false;
    Clock::time_point send;
    int loop = 0;
    const EventObserver* observer = nullptr;

  private:
    static std::size_t onData(char* data, std::size_t size, std::size_t count, void* user);
    static int onSocketOptions(void*, curl_socket_t fd, curlsocktype purpose);
    void onEvent(std::string_view data);
    void onToken(const StreamChunk& chunk, Clock::time_point now);

    const Clock::time_point* m_readyAt;
    curl_slist* m_headers = nullptr;
    std::string m_body;
    Clock::time_point m_lastChunk;
    int m_tokenChunks = 0;
    // When this transfer's newest data arrived: its end, as the end of a stream is the data
    // that closes it, not when the connection's close was seen or another socket was served.
    std::optional<Clock::time_point> m_lastReceived;
    long long m_maxChunks = 0; // past this, the server ignores max_tokens: the request is ended
    int m_maxTokens = 0;
    bool m_overrun = false;
    bool m_chat = false;
    std::string m_rawStart; // the first bytes, to explain a non-SSE error reply
    std::unique_ptr<SseParser> m_parser;
};

} // namespace tierscope
