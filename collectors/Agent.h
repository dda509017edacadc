#pragma once

#include "collectors/AgentExposition.h"
#include "collectors/SystemPaths.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace tierscope {

class Collector;

// `tierscope agent`: this machine's collectors served as Prometheus /metrics. GPU and host
// collectors sample on their own thread at `interval`; block counters are read from
// /proc/diskstats at each scrape, so a scrape is never older than the request.
class Agent {
  public:
    struct Options {
        std::string host = "127.0.0.1";
        int port = 9464; // 0: any free port
        SystemPaths paths;
        std::chrono::milliseconds interval{1000};
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
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_serverThread;
    std::atomic<bool> m_serverDone{false};
};

} // namespace tierscope
