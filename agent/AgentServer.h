#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>

namespace tierscope {

// The agent's HTTP server: GET and HEAD only, one response per connection, every request read
// by one poll loop. A client cannot hold the server: each connection has a deadline for its
// whole request (slowloris sockets are closed when it passes, while other connections are
// served), the request head is bounded in bytes and header lines (431 past either), and the
// number of open connections is bounded (the kernel's backlog holds the rest). So memory stays
// bounded by maxConnections x maxHeadBytes plus the responses being sent.
class AgentServer {
  public:
    struct Options {
        std::string host = "127.0.0.1"; // a name or address, IPv6 with or without brackets
        int port = 0;                   // 0: any free port
        std::chrono::milliseconds requestTimeout{5000}; // to read a request, and to send it
        std::size_t maxHeadBytes = 16 * 1024;
        std::size_t maxHeaderLines = 100;
        std::size_t maxConnections = 1024;
    };
    struct Response {
        int status = 200;
        std::string contentType = "text/plain";
        std::string body;
    };
    using Handler = std::function<Response(const std::string& path)>;

    AgentServer(Options options, Handler handler);
    ~AgentServer();
    AgentServer(const AgentServer&) = delete;
    AgentServer& operator=(const AgentServer&) = delete;

    // Binds, listens and serves on a thread; returns the bound port. Throws std::runtime_error
    // when the address cannot be resolved or bound.
    int start();
    void stop(); // safe at any moment, also before or during start()

  private:
    void loop();

    Options m_options;
    Handler m_handler;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace tierscope
