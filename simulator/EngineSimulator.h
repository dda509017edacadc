#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace httplib {
class DataSink;
struct Request;
struct Response;
class Server;
} // namespace httplib

namespace tierscope {

class SimulatedKvTiers;
class SimulatedMetrics;

// An OpenAI-compatible streaming server for tests and demos (not an inference engine). TTFT is
// the sum of three real parts, so storage speed really changes it:
//   queueing behind --max-concurrency,
//   prefill time proportional to the prompt tokens not found in the prefix cache, and
//   the time to actually read the cached prefix's KV chunks from --kv-dir (O_DIRECT when the
//   filesystem allows it).
// Tokens are whitespace-separated words. /metrics speaks vLLM V1 names, with its request-phase
// histograms (queue, prefill, decode, inference, e2e) and, with --kv-dir, LMCache's
// time_to_retrieve, all from these same parts; /sim/requests lists every request's injected
// TTFT and its parts, so tests can compare client measurements.
class EngineSimulator {
    using Clock = std::chrono::steady_clock;

  public:
    struct Options {
        std::string host = "127.0.0.1";
        int port = 0; // 0: any free port
        std::string model = "tierscope-sim";
        std::string kvDir; // empty: cached chunks cost no I/O
        int maxConcurrency = 64;
        double prefillTokensPerS = 20000;
        double decodeTokensPerS = 100; // per request
        int chunkTokens = 256;
        std::int64_t kvBytesPerToken =
            131072; // Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 x fp16
        std::int64_t kvCapacityTokens = 1'000'000;
        double errorRate = 0;      // HTTP 500 before any token
        double disconnectRate = 0; // connection dropped mid-stream
        double stallRate = 0;      // stream pauses for stallMs mid-stream
        int stallMs = 5000;
        std::uint64_t seed = 1;
        int threads = 0;                  // 0: max concurrency + 32 (every stream holds a thread)
        std::size_t recordLimit = 10'000; // /sim/requests keeps the most recent ones only
        // Close each connection after its response. cpp-httplib waits for a connection's next
        // request by polling every 10 ms on the connection's thread: thousands of idle
        // keep-alive connections keep the scheduler so busy that the client starves.
        bool closeConnections = false;
        // 0: KV chunks are read as fast as --kv-dir's device allows. Otherwise reads are paced
        // to at most this many bytes per second, as from a slower tier.
        double kvReadBytesPerS = 0;
        // `sim-engine` waits this long before it listens, as a real engine loads its weights
        // (start() itself does not wait).
        double startupDelayS = 0;
        // A CPU (DRAM) KV tier in front of --kv-dir, as LMCache's local CPU backend: chunks
        // stored or read are kept there (LRU) and served without I/O. 0: none. POST
        // /reset_prefix_cache leaves it alone, as vLLM's reset leaves LMCache's tiers.
        std::int64_t cpuKvCapacityTokens = 0;
        // Recompute cached chunks instead of reading them from --kv-dir when the read would
        // take longer than their prefill (estimated from the reads so far), as LMCache's
        // slow-retrieval fallback does. Counted in tierscope_sim:kv_recomputed_tokens.
        bool recomputeFallback = false;
        // Whose metrics the reads from --kv-dir appear in: "lmcache" (LMCache's
        // time_to_retrieve, inside vLLM's prefill time), "lmcache-mp" (LMCache's multi-process
        // server, whose lmcache_mp_* lookups are served on a /metrics of its own, on
        // lmcacheMpPort) or "offloading" (vLLM's OffloadingConnector: the request waits
        // deferred, before it is scheduled, and the wait is
        // kv_offload_lookup_async_delay_seconds inside the queue time) or "hicache" (SGLang
        // with HiCache: every family in SGLang's names, cached tokens by source, the reads a
        // load back).
        std::string kvConnector = "lmcache";
        int lmcacheMpPort = 0; // with "lmcache-mp"; 0: any free port (lmcacheMpPort())
    };
    struct RequestRecord {
        std::int64_t id = 0;
        int promptTokens = 0;
        int cachedTokens = 0;
        double queueS = 0, prefillS = 0, kvReadS = 0, ttftS = 0;
        std::int64_t kvBytesRead = 0;
        std::string fault; // "", "error", "disconnect", "stall"
    };

    explicit EngineSimulator(Options options);
    ~EngineSimulator();

    int start(); // returns the bound port; throws std::runtime_error when it cannot bind
    void stop();
    void wait(); // until stop()
    // The LMCache server's own /metrics port (kvConnector "lmcache-mp", after start()); 0 else.
    int lmcacheMpPort() const { return m_mpPort; }

    std::vector<RequestRecord> records() const; // the newest Options::recordLimit
    std::string metricsText() const;
    // vLLM's POST /reset_prefix_cache: the engine forgets the prefixes it holds in memory.
    // Without --kv-dir that is the whole cache. With it, every cached chunk lives in --kv-dir,
    // which models an external KV store (LMCache's disk tier) that this reset leaves alone: the
    // chunks stay and are read from storage again.
    void resetPrefixCache();
    bool kvDirectIo() const;

  private:
    struct Plan;
    struct Completion;
    Plan admit(std::int64_t id, const std::string& prompt, int maxTokens);
    void release(const Plan& plan);
    bool roll(double rate);
    void remember(RequestRecord record); // with m_mutex held
    void routes();
    void startLmcacheServer();
    void handleResetPrefixCache(httplib::Response& res);
    void handleMetrics(httplib::Response& res) const;
    void handleModels(httplib::Response& res) const;
    void handleRequests(httplib::Response& res) const;
    void handleCompletion(const httplib::Request& req, httplib::Response& res, bool chat);
    // Runs admission, KV reads and prefill; returns the plan with the TTFT recorded.
    Plan prefill(const Completion& completion);
    void cacheChunks(const std::vector<std::uint64_t>& chunks); // with m_mutex held
    void replyWhole(const Completion& completion, httplib::Response& res);
    bool streamReply(const Completion& completion, httplib::DataSink& sink);

    Options m_options;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_listener;
    std::unique_ptr<httplib::Server> m_mpServer; // LMCache's server, "lmcache-mp" only
    std::thread m_mpListener;
    int m_mpPort = 0;
    std::atomic<std::int64_t> m_nextId{1};
    int m_listenFd = -1;
    std::unique_ptr<SimulatedKvTiers> m_kvTiers; // its own locks, taken after m_mutex

    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_slotFree;
    int m_running = 0;
    int m_waiting = 0;
    int m_deferred = 0; // reading their KV under the offloading connector
    std::int64_t m_activeTokens = 0;
    std::list<std::uint64_t> m_lru; // prefix-cache chunk hashes, most recent first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> m_cached;
    std::deque<RequestRecord> m_records; // the newest recordLimit
    std::unique_ptr<SimulatedMetrics> m_metrics;
    std::mt19937_64 m_random;
};

} // namespace tierscope
