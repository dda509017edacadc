#pragma once

#include "LoopbackServer.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tierscope::test {

// A scripted OpenAI-style streaming server on a free loopback port, for tests that need exact
// control of what an engine sends and when: reasoning deltas, role-only chunks, several tokens
// in one chunk, no usage chunk, an error status. Not the project's simulator: each reply is
// chosen by a script from the request body, and each event leaves at its own offset from the
// moment the request was read (sleep_until, so offsets do not drift).
class SseTestServer {
  public:
    using Clock = std::chrono::steady_clock;
    struct Event {
        int atMs = 0;     // after the request was read
        std::string data; // raw bytes: usually event(json)
    };
    struct Reply {
        int status = 200;
        std::string errorBody; // the body when status is not 200
        std::vector<Event> events;
        std::string tag; // names the reply in ended()
    };
    using Script = std::function<Reply(const std::string& body)>;

    explicit SseTestServer(Script script) : m_script(std::move(script)) {}
    int port() const { return m_server.port(); }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
    int requests() const { return m_requests; }
    std::vector<std::string> bodies() const {
        std::lock_guard lock(m_mutex);
        return m_bodies;
    }
    std::vector<std::string> headers() const {
        std::lock_guard lock(m_mutex);
        return m_headers;
    }
    // When the last byte of each tagged reply left this server.
    std::map<std::string, Clock::time_point> ended() const {
        std::lock_guard lock(m_mutex);
        return m_ended;
    }
    // Each event of a tagged reply: the wall-clock ns just before its write began and just
    // after it returned. A client's kernel receive timestamps (CLOCK_REALTIME) fall between.
    struct Sent {
        std::int64_t beforeNs = 0, afterNs = 0;
    };
    std::map<std::string, std::vector<Sent>> sent() const {
        std::lock_guard lock(m_mutex);
        return m_sent;
    }

    static std::string event(const std::string& json) { return "data: " + json + "\n\n"; }
    static std::string done() { return "data: [DONE]\n\n"; }
    // Chunks as vLLM's OpenAI server writes them (exclude_unset: only the fields it set).
    static std::string roleChunk() {
        return event(R"({"id":"chatcmpl-t","object":"chat.completion.chunk","model":"m",)"
                     R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},)"
                     R"("logprobs":null,"finish_reason":null}]})");
    }
    static std::string deltaChunk(const std::string& field, const std::string& text,
                                  const char* finish = nullptr) {
        return event(R"({"id":"chatcmpl-t","object":"chat.completion.chunk","model":"m",)"
                     R"("choices":[{"index":0,"delta":{")" +
                     field + R"(":")" + text + R"("},"logprobs":null,"finish_reason":)" +
                     (finish ? "\"" + std::string(finish) + "\"" : std::string("null")) + "}]}");
    }
    static std::string textChunk(const std::string& text) {
        return event(R"({"id":"cmpl-t","object":"text_completion","model":"m",)"
                     R"("choices":[{"index":0,"text":")" +
                     text + R"(","logprobs":null,"finish_reason":null}]})");
    }
    static std::string usageChunk(int prompt, int completion) {
        return event(R"({"id":"chatcmpl-t","object":"chat.completion.chunk","model":"m",)"
                     R"("choices":[],"usage":{"prompt_tokens":)" +
                     std::to_string(prompt) + R"(,"total_tokens":)" +
                     std::to_string(prompt + completion) + R"(,"completion_tokens":)" +
                     std::to_string(completion) + "}}");
    }

  private:
    static std::int64_t wallNs() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    }
    bool sendAll(int fd, const std::string& data) { return m_server.sendAll(fd, data); }

    void sleepUntil(Clock::time_point when) {
        while (!m_server.stopping() && Clock::now() < when)
            std::this_thread::sleep_until(
                std::min(when, Clock::now() + std::chrono::milliseconds(20)));
    }

    // Headers, then Content-Length bytes of body; empty when the client went away.
    static std::pair<std::string, std::string> readRequest(int fd) {
        std::string request;
        char buffer[8192];
        std::size_t headerEnd = std::string::npos;
        std::size_t length = 0;
        for (;;) {
            if (headerEnd == std::string::npos) {
                headerEnd = request.find("\r\n\r\n");
                if (headerEnd != std::string::npos) {
                    const auto at = request.find("Content-Length:");
                    if (at != std::string::npos && at < headerEnd)
                        length = std::stoul(request.substr(at + 15));
                }
            }
            if (headerEnd != std::string::npos && request.size() >= headerEnd + 4 + length)
                return {request.substr(0, headerEnd), request.substr(headerEnd + 4, length)};
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                return {};
            request.append(buffer, static_cast<std::size_t>(n));
        }
    }

    void serve(int fd) {
        const auto [head, body] = readRequest(fd);
        const auto start = Clock::now();
        if (head.empty()) {
            ::close(fd);
            return;
        }
        // Completions are POSTed; anything else (a recording's GET /metrics) is not scripted and
        // not counted: this engine has no /metrics.
        if (!head.starts_with("POST ")) {
            sendAll(fd, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            ::close(fd);
            return;
        }
        ++m_requests;
        {
            std::lock_guard lock(m_mutex);
            m_bodies.push_back(body);
            m_headers.push_back(head);
        }
        const Reply reply = m_script(body);
        std::vector<Sent> stamps;
        if (reply.status != 200) {
            sendAll(fd, "HTTP/1.1 " + std::to_string(reply.status) +
                            " Error\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(reply.errorBody.size()) +
                            "\r\nConnection: close\r\n\r\n" + reply.errorBody);
        } else if (sendAll(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                               "Connection: close\r\n\r\n")) {
            for (const auto& e : reply.events) {
                sleepUntil(start + std::chrono::milliseconds(e.atMs));
                const std::int64_t before = wallNs();
                if (m_server.stopping() || !sendAll(fd, e.data))
                    break;
                stamps.push_back({before, wallNs()});
            }
        }
        if (!reply.tag.empty()) {
            std::lock_guard lock(m_mutex);
            m_ended[reply.tag] = Clock::now();
            m_sent[reply.tag] = std::move(stamps);
        }
        ::close(fd);
    }

    Script m_script;
    std::atomic<int> m_requests{0};
    mutable std::mutex m_mutex;
    std::vector<std::string> m_bodies, m_headers;
    std::map<std::string, Clock::time_point> m_ended;
    std::map<std::string, std::vector<Sent>> m_sent;
    LoopbackServer m_server{[this](int fd) { serve(fd); }, 128}; // last: stopped first
};

} // namespace tierscope::test
