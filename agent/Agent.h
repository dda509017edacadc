#pragma once

#include "agent/AgentExposition.h"
#include "collectors/base/SystemPaths.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tierscope {

class AgentServer;
class Collector;

// `tierscope agent`: this machine's collectors served as Prometheus /metrics (AgentServer:
// bounded requests, so no client can hold the scrapes). GPU and host
// collectors sample on their own thread at `interval`; block counters are read from
// /proc/diskstats at each scrape, so a scrape is never older than the request.
class Agent {
  public:
    struct Options {
        std::string host = "127.0.0.1";
        int port = 9464; // 0: any free port
        SystemPaths paths;
        std::chrono::milliseconds interval{1000};
        std::chrono::milliseconds requestTimeout{5000}; // to read one request, and to send it
    };

    explicit Agent(Options options);
    ~Agent();
    Agent(const Agent&) = delete;
    Agent& operator=(const Agent&) = delete;

    // Binds and serves on a thread; returns the bound port. Throws std::runtime_error when the
    // address cannot be bound.
    int start();
    void stop();
    // The exposition as a scrape would get it now.
    std::string scrape();

    // Whether every address `host` resolves to is a loopback address (127.0.0.0/8, ::1,
    // ::ffff:127.x); false when it does not resolve.
    static bool isLoopback(const std::string& host);

  private:
    void sampleLoop();

    Options m_options;
    AgentSnapshot m_base; // devices, transports, NQNs: found once at start
    std::vector<std::unique_ptr<Collector>> m_collectors;
    std::mutex m_mutex;
    std::vector<Reading> m_gpu;
    std::vector<Reading> m_host;
    std::atomic<std::uint64_t> m_scrapes{0};
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_sampler;
    std::unique_ptr<AgentServer> m_server;
};

} // namespace tierscope
