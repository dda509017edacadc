#include "loadgen/StreamTransfer.h"

#include "loadgen/ReceiveTimestamp.h"
#include "loadgen/StreamChunk.h"

#include <algorithm>

namespace tierscope {

namespace {

constexpr std::size_t kMaxAnswerBytes = 1 << 20;
// A stream has at most one chunk per token plus a few without text (role, usage); one that
// runs far past max_tokens would otherwise grow its gaps without bound (262 MB in 15 s).
constexpr int kChunksPerToken = 4;
constexpr int kChunkSlack = 64;

double seconds(StreamTransfer::Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

} // namespace

StreamTransfer::StreamTransfer(Cursor cursor_, int maxTokens, bool chat, std::size_t maxLineBytes,
                               const Clock::time_point* readyAt)
    : cursor(std::move(cursor_)), m_readyAt(readyAt),
      m_maxChunks(static_cast<long long>(maxTokens) * kChunksPerToken + kChunkSlack),
      m_maxTokens(maxTokens), m_chat(chat),
      m_parser(
          std::make_unique<SseParser>([this](std::string_view d) { onEvent(d); }, maxLineBytes)) {}

StreamTransfer::~StreamTransfer() {
    if (easy)
        curl_easy_cleanup(easy);
    curl_slist_free_all(m_headers);
}

void StreamTransfer::open(const std::string& url, std::string requestBody,
                          const std::string& authorization, long timeoutMs, bool insecureTls) {
    m_body = std::move(requestBody);
    m_headers = curl_slist_append(nullptr, "Content-Type: application/json");
    // libcurl otherwise sends "Expect: 100-continue" for bodies over 1 KiB and holds the body
    // back for up to a second: that wait would be counted as TTFT.
    m_headers = curl_slist_append(m_headers, "Expect:");
    if (!authorization.empty())
        m_headers = curl_slist_append(m_headers, authorization.c_str());
    easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    // Never file://, gopher:// and the rest, not even through a redirect.
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, m_body.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(m_body.size()));
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, m_headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onData);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, this);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeoutMs);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, onSocketOptions);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, insecureTls ? 0L : 1L);
    curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, insecureTls ? 0L : 2L);
}

StreamTransfer::Clock::time_point StreamTransfer::end(CURLcode result, Clock::time_point seenAt) {
    const bool cutShort = result == CURLE_OK && !m_parser->finish();
    // A stream ends with its last arrival, as vLLM's client stamps it: a usage chunk or a
    // [DONE] sent late is no part of the request's latency. A failure (a timeout, a reset)
    // ends when it was seen.
    const bool arrived = record.ttftS.has_value();
    const auto ended = result == CURLE_OK && arrived          ? m_lastChunk
                       : result == CURLE_OK && m_lastReceived ? *m_lastReceived
                                                              : seenAt;
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    record.httpStatus = static_cast<int>(status);
    if (record.error.empty()) {
        if (result != CURLE_OK)
            record.error = std::string(curl_easy_strerror(result)) + " after " +
                           std::to_string(m_tokenChunks) + " token chunks";
        else if (status != 200)
            record.error = "HTTP " + std::to_string(status) + ": " + m_rawStart.substr(0, 200);
        else if (!record.ttftS)
            record.error = "no token received";
        // Stricter than vLLM's client, which drops a cut line silently: a stream that ends
        // inside a line was cut (a reset that reached curl as a plain close).
        else if (cutShort)
            record.error = "the stream ended in the middle of a line after " +
                           std::to_string(m_tokenChunks) + " token chunks";
        // A stream that closes cleanly after its tokens but without [DONE] succeeds, as in
        // vLLM's client; a cut one fails above, with curl's error.
    }
    record.e2eS = seconds(ended - send);
    const double lateness = seconds(send - cursor.scheduled);
    if (record.ttftS)
        record.ttftScheduledS = *record.ttftS + lateness;
    record.e2eScheduledS = *record.e2eS + lateness;
    return ended;
}

// An arrival (a chunk with a choice, StreamChunk, as vLLM's client counts them): the first one
// is the first token (TTFT), each later one adds a gap, the last one ends the request. Only the
// answer goes into the history.
void StreamTransfer::onToken(const StreamChunk& chunk, Clock::time_point now) {
    if (!chunk.choice || m_overrun)
        return;
    if (!record.ttftS)
        record.ttftS = seconds(now - send);
    else
        record.itlS.push_back(seconds(now - m_lastChunk));
    m_lastChunk = now;
    if (++m_tokenChunks > m_maxChunks && !m_overrun) {
        m_overrun = true;
        record.error = "the server sent more than " + std::to_string(m_maxChunks) +
                       " token chunks for max_tokens " + std::to_string(m_maxTokens) +
                       ": it ignores max_tokens; the request was ended";
    }
    if (record.outputText.size() < kMaxAnswerBytes)
        record.outputText += chunk.text;
}

void StreamTransfer::onEvent(std::string_view data) {
    auto chunk = StreamChunk::parse(data, m_chat, !record.responseId.empty());
    if (chunk.done)
        return; // the end of the stream says nothing more: the last arrival ended the request
    if (!chunk.error.empty() && record.error.empty())
        record.error = std::move(chunk.error);
    if (record.responseId.empty() && chunk.id)
        record.responseId = std::move(*chunk.id);
    if (chunk.promptTokens)
        record.promptTokens = chunk.promptTokens;
    if (chunk.outputTokens)
        record.outputTokens = chunk.outputTokens;
    onToken(chunk, *m_readyAt);
}

std::size_t StreamTransfer::onData(char* data, std::size_t size, std::size_t count, void* user) {
    auto* t = static_cast<StreamTransfer*>(user);
    const std::size_t n = size * count;
    t->m_lastReceived = *t->m_readyAt;
    if (t->observer)
        (*t->observer)(t->loop, t->record.index);
    if (t->m_rawStart.size() < 512)
        t->m_rawStart.append(data, std::min(n, 512 - t->m_rawStart.size()));
    if (!t->m_parser->feed(std::string_view(data, n))) {
        t->record.error = t->m_parser->error();
        return 0; // abort: the stream is unusable
    }
    return t->m_overrun ? 0 : n;
}

int StreamTransfer::onSocketOptions(void*, curl_socket_t fd, curlsocktype purpose) {
    if (purpose == CURLSOCKTYPE_IPCXN)
        ReceiveTimestamp::enable(fd); // without it, chunks are timed when seen readable
    return CURL_SOCKOPT_OK;
}

} // namespace tierscope
