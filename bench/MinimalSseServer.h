#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tierscope::bench {

// A deliberately small OpenAI-style streaming server for client benchmarks: one thread, epoll,
// non-blocking sockets, a timerfd for token deadlines. Unlike the engine simulator (thread per
// connection), its own scheduling noise stays in the tens of microseconds at thousands of
// streams on two cores, so what a client measures is the client. Each request gets its first
// token `ttft` after the request is fully received, then one token per 1/tokensPerS.
class MinimalSseServer {
  public:
    struct Served {
        std::string id;     // the response id the client sees ("cmpl-N")
        double ttftS = 0.0; // request received -> first token written, as actually sent
    };

    MinimalSseServer(std::chrono::microseconds ttft, double tokensPerS);
    ~MinimalSseServer();
    MinimalSseServer(const MinimalSseServer&) = delete;
    MinimalSseServer& operator=(const MinimalSseServer&) = delete;

    // Binds 127.0.0.1 on a free port and starts serving; returns the port.
    int start();
    void stop();
    std::vector<Served> served() const;
    // CPU time of the server's thread so far, so that a client in the same process can take it
    // out of the process's CPU time; 0 before start().
    double cpuSeconds() const;

  private:
    using Clock = std::chrono::steady_clock;
    struct Connection {
        int fd = -1;
        std::uint64_t serial = 0; // tells a reused fd from the connection a deadline was set for
        std::string in;
        std::string out;
        bool wantsWrite = false;
        std::string id;
        int tokensLeft = 0;
        int sent = 0;
        Clock::time_point arrived; // kernel receive time of the first buffered byte
        Clock::time_point received;
        Clock::time_point nextToken;
    };
    struct Due {
        Clock::time_point at;
        int fd;
        std::uint64_t serial;
        bool operator>(const Due& o) const { return at > o.at; }
    };

    void loop();
    void accept();
    void onReadable(Connection& c);
    void beginStream(Connection& c, int maxTokens);
    void emitDue();
    void sendToken(Connection& c);
    void queue(Connection& c, const std::string& payload);
    void flush(Connection& c);
    void close(int fd);
    void armTimer();

    std::chrono::microseconds m_ttft;
    std::chrono::nanoseconds m_tokenGap;
    int m_listen = -1;
    int m_epoll = -1;
    int m_timer = -1;
    int m_wake = -1;
    std::thread m_thread;
    std::vector<std::unique_ptr<Connection>> m_connections; // indexed by fd
    std::uint64_t m_nextId = 0;
    std::uint64_t m_nextSerial = 0;
    Clock::time_point m_armed; // the deadline the timerfd is set to; epoch: disarmed
    std::vector<Due> m_heap;   // min-heap on `at`
    mutable std::mutex m_mutex;
    std::vector<Served> m_served;
};

} // namespace tierscope::bench
