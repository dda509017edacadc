#include "simulator/EngineSimulator.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <httplib.h>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;

// vLLM V1's TTFT histogram buckets.
constexpr std::array<double, 22> kTtftBounds{0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                             0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                             20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};

// vLLM V1's request_latency_buckets (vllm/v1/metrics/loggers.py), which it uses for every
// request-phase histogram.
constexpr std::array<double, 21> kPhaseBounds{0.3,  0.5,  0.8,  1.0,   1.5,   2.0,   2.5,
                                              5.0,  10.0, 15.0, 20.0,  30.0,  40.0,  50.0,
                                              60.0, 120., 240., 480.0, 960.0, 1920., 7680.};

// One Prometheus histogram with fixed bounds, written in the text format as prometheus_client
// does (cumulative buckets, +Inf, _sum, _count).
class Histogram {
  public:
    template <std::size_t N>
    explicit Histogram(const std::array<double, N>& bounds)
        : m_bounds(bounds.begin(), bounds.end()), m_counts(N, 0.0) {}

    void observe(double v) {
        for (std::size_t b = 0; b < m_bounds.size(); ++b)
            if (v <= m_bounds[b])
                m_counts[b] += 1;
        m_sum += v;
        ++m_count;
    }

    std::string text(const char* name, const char* help, const std::string& labels) const {
        std::string out =
            std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " histogram\n";
        char line[320];
        for (std::size_t b = 0; b < m_bounds.size(); ++b) {
            std::snprintf(line, sizeof line, "%s_bucket{%s,le=\"%g\"} %.0f\n", name, labels.c_str(),
                          m_bounds[b], m_counts[b]);
            out += line;
        }
        std::snprintf(line, sizeof line,
                      "%s_bucket{%s,le=\"+Inf\"} %lld\n%s_sum{%s} %.9f\n%s_count{%s} %lld\n", name,
                      labels.c_str(), static_cast<long long>(m_count), name, labels.c_str(), m_sum,
                      name, labels.c_str(), static_cast<long long>(m_count));
        return out + line;
    }

  private:
    std::vector<double> m_bounds;
    std::vector<double> m_counts; // cumulative, per bound
    double m_sum = 0;
    std::int64_t m_count = 0;
};

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        out.push_back(std::move(w));
    return out;
}

// Prefix-dependent hashes of each complete chunk, as a KV-cache key: FNV-1a over every token
// from the start of the prompt to the end of the chunk.
std::vector<std::uint64_t> chunkHashes(const std::vector<std::string>& tokens, int chunkTokens) {
    std::vector<std::uint64_t> out;
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        for (const char c : tokens[i])
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        h = (h ^ 0x20) * 1099511628211ull;
        if ((i + 1) % static_cast<std::size_t>(chunkTokens) == 0)
            out.push_back(h);
    }
    return out;
}

std::string promptOf(const nlohmann::json& body, bool chat) {
    if (!chat) {
        const auto& p = body.value("prompt", nlohmann::json(""));
        return p.is_string() ? p.get<std::string>() : p.dump();
    }
    std::string text;
    for (const auto& m : body.value("messages", nlohmann::json::array())) {
        const auto& c = m.value("content", nlohmann::json(""));
        text += (c.is_string() ? c.get<std::string>() : c.dump()) + " ";
    }
    return text;
}

// Seconds since the epoch at which this process started, as the Prometheus client libraries
// compute process_start_time_seconds: boot time (btime in /proc/stat) plus the start time in
// clock ticks (field 22 of /proc/self/stat).
double processStartTime() {
    std::ifstream stat("/proc/stat");
    double boot = 0;
    for (std::string key; stat >> key;) {
        if (key == "btime") {
            stat >> boot;
            break;
        }
        stat.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    std::ifstream self("/proc/self/stat");
    std::string text;
    std::getline(self, text);
    const auto close = text.rfind(')');
    std::istringstream fields(close == std::string::npos ? "" : text.substr(close + 2));
    std::string field;
    double ticks = -1;
    for (int i = 3; fields >> field; ++i) // field 3 is the state, right after the comm
        if (i == 22) {
            ticks = std::strtod(field.c_str(), nullptr);
            break;
        }
    if (boot <= 0 || ticks < 0) // not Linux /proc: the construction time is as good
        return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    return boot + ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

} // namespace

struct EngineSimulator::Plan {
    std::int64_t id = 0;
    int promptTokens = 0;
    int maxTokens = 0;
    std::vector<std::uint64_t> cachedChunks;
    std::vector<std::uint64_t> missChunks;
    double queueS = 0;
    // For the phase histograms: arrival at the front end, the end of queueing (vLLM's
    // "scheduled"), and the first token.
    Clock::time_point arrival, admitted, firstToken;
};

// The simulator's own parts of each request, in vLLM V1's and LMCache's histograms: queue =
// waiting for a slot; prefill = admission to first token (the KV reads and the prefill
// compute); decode = first to last token; inference = prefill + decode; e2e = arrival to the
// last token; LMCache time_to_retrieve = the KV reads from --kv-dir, for requests that read.
// TTFT and its parts are observed together at the first token, so over any scrape interval
// TTFT's sum is queue's plus prefill's plus the front end's (parsing) time.
struct EngineSimulator::PhaseHistograms {
    Histogram queue{kPhaseBounds}, prefill{kPhaseBounds}, decode{kPhaseBounds},
        inference{kPhaseBounds}, e2e{kPhaseBounds}, retrieve{kTtftBounds};
};

void EngineSimulator::observeFirstToken(const Plan& plan, const RequestRecord& record) {
    const double prefill = std::chrono::duration<double>(plan.firstToken - plan.admitted).count();
    m_phases->queue.observe(plan.queueS);
    m_phases->prefill.observe(prefill);
    if (!m_options.kvDir.empty() && !plan.cachedChunks.empty())
        m_phases->retrieve.observe(record.kvReadS);
}

void EngineSimulator::observeFinished(const Plan& plan) {
    const auto now = Clock::now();
    const double decode = std::chrono::duration<double>(now - plan.firstToken).count();
    m_phases->decode.observe(decode);
    m_phases->inference.observe(std::chrono::duration<double>(now - plan.admitted).count());
    m_phases->e2e.observe(std::chrono::duration<double>(now - plan.arrival).count());
}

std::string EngineSimulator::phaseMetricsText(const std::string& labels) const {
    const auto& h = *m_phases;
    std::string out =
        h.queue.text("vllm:request_queue_time_seconds",
                     "Histogram of time spent in WAITING phase for request.", labels) +
        h.prefill.text("vllm:request_prefill_time_seconds",
                       "Histogram of time spent in PREFILL phase for request.", labels) +
        h.decode.text("vllm:request_decode_time_seconds",
                      "Histogram of time spent in DECODE phase for request.", labels) +
        h.inference.text("vllm:request_inference_time_seconds",
                         "Histogram of time spent in RUNNING phase for request.", labels) +
        h.e2e.text("vllm:e2e_request_latency_seconds",
                   "Histogram of e2e request latency in seconds.", labels);
    if (!m_options.kvDir.empty()) // LMCache is there only with a KV tier
        out +=
            h.retrieve.text("lmcache:time_to_retrieve", "Time to retrieve from lmcache (seconds)",
                            "model_name=\"" + m_options.model + "\",worker_id=\"0\"");
    return out;
}

// A slower tier: the read of `bytes` ends no sooner than bytes / kvReadBytesPerS after it began.
void EngineSimulator::paceKvRead(Clock::time_point started, std::int64_t bytes) const {
    if (m_options.kvReadBytesPerS <= 0 || bytes <= 0)
        return;
    std::this_thread::sleep_until(
        started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                      static_cast<double>(bytes) / m_options.kvReadBytesPerS)));
}

EngineSimulator::EngineSimulator(Options options)
    : m_options(std::move(options)), m_server(std::make_unique<httplib::Server>()),
      m_phases(std::make_unique<PhaseHistograms>()), m_ttftBuckets(kTtftBounds.size(), 0.0),
      m_random(m_options.seed), m_processStart(processStartTime()) {
    if (m_options.threads <= 0)
        m_options.threads = m_options.maxConcurrency + 32;
    m_server->new_task_queue = [threads = m_options.threads] {
        return new httplib::ThreadPool(threads);
    };
    // Token chunks are tiny writes: without TCP_NODELAY, Nagle holds each one until the client's
    // delayed ACK (~40 ms), which would show up as TTFT and ITL.
    m_server->set_tcp_nodelay(true);
    // cpp-httplib closes a keep-alive connection after 5 requests by default; engines do not,
    // and every reconnect would add a TCP handshake to some request's TTFT.
    m_server->set_keep_alive_max_count(m_options.closeConnections ? 1 : 1'000'000);
    m_server->set_keep_alive_timeout(60);
    // Remember the listening socket: start() raises its backlog past cpp-httplib's built-in 5.
    m_server->set_socket_options([this](int fd) {
        int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        m_listenFd = fd;
    });
    routes();
    if (!m_options.kvDir.empty())
        m_kvWriter = std::thread(&EngineSimulator::kvWriterLoop, this);
}

EngineSimulator::~EngineSimulator() {
    stop();
    {
        std::lock_guard lock(m_kvMutex);
        m_kvStop = true;
    }
    m_kvWork.notify_all();
    m_kvIdle.notify_all();
    if (m_kvWriter.joinable())
        m_kvWriter.join();
}

int EngineSimulator::start() {
    const int port =
        m_options.port == 0
            ? m_server->bind_to_any_port(m_options.host)
            : (m_server->bind_to_port(m_options.host, m_options.port) ? m_options.port : -1);
    if (port <= 0)
        throw std::runtime_error("cannot listen on " + m_options.host + ":" +
                                 std::to_string(m_options.port));
    // A burst of connections (64 streams opening at once) overflows a 5-deep accept queue, and
    // the kernel drops SYNs that clients resend only after a second: raise it as servers do.
    if (m_listenFd >= 0)
        ::listen(m_listenFd, 4096);
    auto returned = std::make_shared<std::atomic<bool>>(false);
    m_listener = std::thread([this, returned] {
        m_server->listen_after_bind();
        *returned = true;
    });
    // cpp-httplib's stop() does nothing until its accept loop runs, and the loop would then run
    // on: a stop() right after start() (a Ctrl-C during start-up) must find it running.
    while (!m_server->is_running() && !*returned)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return port;
}

void EngineSimulator::stop() {
    if (m_server)
        m_server->stop();
    if (m_listener.joinable())
        m_listener.join();
}

void EngineSimulator::wait() {
    if (m_listener.joinable())
        m_listener.join();
}

bool EngineSimulator::roll(double rate) {
    if (rate <= 0)
        return false;
    std::lock_guard lock(m_mutex);
    return std::uniform_real_distribution<double>(0, 1)(m_random) < rate;
}

EngineSimulator::Plan EngineSimulator::admit(std::int64_t id, const std::string& prompt,
                                             int maxTokens) {
    const auto tokens = words(prompt);
    const auto chunks = chunkHashes(tokens, m_options.chunkTokens);
    const auto arrival = Clock::now();
    Plan plan;
    plan.id = id;
    plan.promptTokens = static_cast<int>(tokens.size());
    plan.maxTokens = maxTokens;
    std::unique_lock lock(m_mutex);
    ++m_waiting;
    m_slotFree.wait(lock, [&] { return m_running < m_options.maxConcurrency; });
    --m_waiting;
    ++m_running;
    plan.queueS = since(arrival);
    plan.admitted = Clock::now();
    std::size_t i = 0;
    for (; i < chunks.size(); ++i) {
        const auto it = m_cached.find(chunks[i]);
        if (it == m_cached.end())
            break;
        m_lru.splice(m_lru.begin(), m_lru, it->second); // touch
        plan.cachedChunks.push_back(chunks[i]);
    }
    plan.missChunks.assign(chunks.begin() + static_cast<std::ptrdiff_t>(i), chunks.end());
    m_activeTokens += plan.promptTokens + maxTokens;
    m_promptTokens += plan.promptTokens;
    m_prefixQueries += plan.promptTokens;
    m_prefixHits += static_cast<double>(plan.cachedChunks.size()) * m_options.chunkTokens;
    return plan;
}

void EngineSimulator::release(const Plan& plan) {
    {
        std::lock_guard lock(m_mutex);
        --m_running;
        m_activeTokens -= plan.promptTokens + plan.maxTokens;
    }
    m_slotFree.notify_one();
}

std::string EngineSimulator::kvPath(std::uint64_t chunkHash) const {
    char name[32];
    std::snprintf(name, sizeof name, "/%016llx.kv", static_cast<unsigned long long>(chunkHash));
    return m_options.kvDir + name;
}

double EngineSimulator::readKv(const std::vector<std::uint64_t>& chunks, std::int64_t& bytes) {
    const auto started = Clock::now();
    constexpr std::size_t kBlock = 1 << 20;
    void* buffer = nullptr;
    if (posix_memalign(&buffer, 4096, kBlock) != 0)
        return 0;
    for (const auto hash : chunks) {
        const std::string path = kvPath(hash);
        int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (fd < 0 && errno == EINVAL) { // tmpfs and friends: the page cache is not bypassed
            m_kvDirectIo = false;
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        }
        if (fd < 0)
            continue;
        ssize_t n = 0;
        while ((n = ::read(fd, buffer, kBlock)) > 0)
            bytes += n;
        ::close(fd);
    }
    std::free(buffer);
    paceKvRead(started, bytes);
    return since(started);
}

void EngineSimulator::storeKv(const std::vector<std::uint64_t>& chunks) {
    if (m_options.kvDir.empty() || chunks.empty())
        return;
    {
        std::lock_guard lock(m_kvMutex);
        m_kvQueue.insert(m_kvQueue.end(), chunks.begin(), chunks.end());
    }
    m_kvWork.notify_one();
}

void EngineSimulator::kvWriterLoop() {
    std::vector<unsigned char> block(1 << 20);
    std::uint64_t x = m_options.seed | 1;
    for (;;) {
        std::uint64_t hash = 0;
        {
            std::unique_lock lock(m_kvMutex);
            m_kvWork.wait(lock, [&] { return m_kvStop || !m_kvQueue.empty(); });
            if (m_kvStop)
                return;
            hash = m_kvQueue.front();
            m_kvQueue.pop_front();
            m_kvWriting = true;
        }
        struct Done { // the chunk is on disk, or failed: a waiting reader may go on
            EngineSimulator* self;
            ~Done() {
                std::lock_guard lock(self->m_kvMutex);
                self->m_kvWriting = false;
                self->m_kvIdle.notify_all();
            }
        } done{this};
        const std::string path = kvPath(hash);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0)
            continue; // already stored
        std::int64_t left = m_options.kvBytesPerToken * m_options.chunkTokens;
        while (left > 0) {
            for (std::size_t i = 0; i < block.size(); i += 8) { // xorshift: incompressible bytes
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                std::memcpy(&block[i], &x, 8);
            }
            const auto n = static_cast<std::size_t>(
                std::min<std::int64_t>(left, static_cast<std::int64_t>(block.size())));
            if (::write(fd, block.data(), n) != static_cast<ssize_t>(n))
                break;
            left -= static_cast<std::int64_t>(n);
        }
        ::close(fd);
    }
}

void EngineSimulator::waitForKvWrites() {
    std::unique_lock lock(m_kvMutex);
    m_kvIdle.wait(lock, [&] { return m_kvStop || (m_kvQueue.empty() && !m_kvWriting); });
}

void EngineSimulator::keepInCpuTier(const std::vector<std::uint64_t>& chunks) {
    const auto capacity =
        static_cast<std::size_t>(m_options.cpuKvCapacityTokens / m_options.chunkTokens);
    for (const auto hash : chunks) {
        if (const auto it = m_cpuCached.find(hash); it != m_cpuCached.end()) {
            m_cpuLru.splice(m_cpuLru.begin(), m_cpuLru, it->second);
            continue;
        }
        if (capacity == 0)
            return;
        m_cpuLru.push_front(hash);
        m_cpuCached[hash] = m_cpuLru.begin();
        while (m_cpuCached.size() > capacity) {
            m_cpuCached.erase(m_cpuLru.back());
            m_cpuLru.pop_back();
        }
    }
}

EngineSimulator::KvRetrieval EngineSimulator::retrieveKv(const std::vector<std::uint64_t>& chunks,
                                                         int promptTokens) {
    KvRetrieval out;
    if (m_options.kvDir.empty())
        return out; // no KV store: cached chunks are in GPU memory and cost nothing
    std::vector<std::uint64_t> fromDisk;
    bool recompute = false;
    {
        std::lock_guard lock(m_tierMutex);
        ++m_lmRetrieves;
        m_lmRequestedTokens += promptTokens;
        for (const auto hash : chunks)
            if (m_cpuCached.count(hash))
                m_cpuHitTokens += m_options.chunkTokens;
            else
                fromDisk.push_back(hash);
        keepInCpuTier(chunks); // what is read now is kept in RAM from now on
        const double diskTokens = static_cast<double>(fromDisk.size()) * m_options.chunkTokens;
        const double readEstimateS =
            m_readBytesPerS > 0
                ? diskTokens * static_cast<double>(m_options.kvBytesPerToken) / m_readBytesPerS
                : 0;
        recompute = m_options.recomputeFallback && !fromDisk.empty() &&
                    readEstimateS > diskTokens / m_options.prefillTokensPerS;
        if (recompute) {
            out.recomputedTokens = static_cast<int>(diskTokens);
            m_recomputedTokens += diskTokens;
        }
        m_lmHitTokens +=
            static_cast<double>(chunks.size()) * m_options.chunkTokens - out.recomputedTokens;
    }
    if (fromDisk.empty() || recompute)
        return out;
    waitForKvWrites(); // the populate phase's chunks may still be on their way to disk
    out.readS = readKv(fromDisk, out.bytes);
    std::lock_guard lock(m_tierMutex);
    if (out.readS > 0 && out.bytes > 0) {
        const double speed = static_cast<double>(out.bytes) / out.readS;
        m_readBytesPerS = m_readBytesPerS > 0 ? 0.5 * m_readBytesPerS + 0.5 * speed : speed;
    }
    m_lmReadBytes += static_cast<double>(out.bytes);
    m_lmReadRequests += static_cast<double>(fromDisk.size());
    return out;
}

std::string EngineSimulator::lmcacheMetricsText(std::size_t diskChunks) const {
    if (m_options.kvDir.empty())
        return {};
    std::lock_guard lock(m_tierMutex);
    const std::string labels = "model_name=\"" + m_options.model + "\"";
    std::string out;
    auto metric = [&](const char* name, const char* type, const char* help, double v) {
        const bool counter = std::string(type) == "counter";
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
               name + (counter ? "_total{" : "{") + labels + "} " + std::to_string(v) + "\n";
    };
    const double chunkBytes =
        static_cast<double>(m_options.kvBytesPerToken) * m_options.chunkTokens;
    // LMCache's names; the simulator's --kv-dir stands for its storage backend, so its reads
    // count as "remote" reads.
    metric("lmcache:num_retrieve_requests", "counter", "Total number of retrieve requests",
           m_lmRetrieves);
    metric("lmcache:num_requested_tokens", "counter",
           "Total number of tokens requested for retrieval", m_lmRequestedTokens);
    metric("lmcache:num_hit_tokens", "counter", "Total number of cache hit tokens from retrieval",
           m_lmHitTokens);
    metric("lmcache:num_remote_read_requests", "counter",
           "Total number of read requests to the KV store (--kv-dir)", m_lmReadRequests);
    metric("lmcache:num_remote_read_bytes", "counter",
           "Total number of bytes read from the KV store (--kv-dir)", m_lmReadBytes);
    metric("lmcache:local_cache_usage", "gauge", "Local (CPU) cache usage in bytes",
           static_cast<double>(m_cpuCached.size()) * chunkBytes);
    metric("lmcache:local_storage_usage", "gauge", "Local storage (--kv-dir) usage in bytes",
           static_cast<double>(diskChunks) * chunkBytes);
    metric("tierscope_sim:kv_cpu_hit_tokens", "counter",
           "Cached tokens served from the CPU tier, without I/O", m_cpuHitTokens);
    metric("tierscope_sim:kv_recomputed_tokens", "counter",
           "Cached tokens recomputed instead of read (--recompute-fallback)", m_recomputedTokens);
    return out;
}

void EngineSimulator::observe(double ttft, int promptTokens, int cachedTokens) {
    (void)promptTokens;
    (void)cachedTokens;
    for (std::size_t b = 0; b < kTtftBounds.size(); ++b)
        if (ttft <= kTtftBounds[b])
            m_ttftBuckets[b] += 1;
    m_ttftSum += ttft;
    ++m_ttftCount;
}

void EngineSimulator::remember(RequestRecord record) {
    // A soak sends millions of requests: the simulator must not be what grows.
    if (m_records.size() >= std::max<std::size_t>(1, m_options.recordLimit))
        m_records.pop_front();
    m_records.push_back(std::move(record));
}

std::vector<EngineSimulator::RequestRecord> EngineSimulator::records() const {
    std::lock_guard lock(m_mutex);
    return {m_records.begin(), m_records.end()};
}

std::string EngineSimulator::metricsText() const {
    std::lock_guard lock(m_mutex);
    const std::string labels = "engine=\"0\",model_name=\"" + m_options.model + "\"";
    std::string out;
    auto gauge = [&](const char* name, const char* help, double v) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n" + name +
               "{" + labels + "} " + std::to_string(v) + "\n";
    };
    auto counter = [&](const char* name, const char* help, double v) {
        out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" +
               name + "_total{" + labels + "} " + std::to_string(v) + "\n";
    };
    gauge("vllm:num_requests_running", "Number of requests in model execution batches.", m_running);
    gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", m_waiting);
    gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
          std::min(1.0, static_cast<double>(m_activeTokens) /
                            static_cast<double>(m_options.kvCapacityTokens)));
    counter("vllm:prompt_tokens", "Number of prefill tokens processed.", m_promptTokens);
    counter("vllm:generation_tokens", "Number of generation tokens processed.", m_generationTokens);
    counter("vllm:prefix_cache_queries",
            "Prefix cache queries, in terms of number of queried tokens.", m_prefixQueries);
    counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            m_prefixHits);
    out += "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n"
           "# TYPE vllm:time_to_first_token_seconds histogram\n";
    char line[256];
    for (std::size_t b = 0; b < kTtftBounds.size(); ++b) {
        std::snprintf(line, sizeof line,
                      "vllm:time_to_first_token_seconds_bucket{%s,le=\"%g\"} %.0f\n",
                      labels.c_str(), kTtftBounds[b], m_ttftBuckets[b]);
        out += line;
    }
    char sum[64];
    std::snprintf(sum, sizeof sum, "%.9f", m_ttftSum);
    const std::string count = std::to_string(m_ttftCount);
    out += "vllm:time_to_first_token_seconds_bucket{" + labels + ",le=\"+Inf\"} " + count + "\n";
    out += "vllm:time_to_first_token_seconds_sum{" + labels + "} " + sum + "\n";
    out += "vllm:time_to_first_token_seconds_count{" + labels + "} " + count + "\n";
    out += phaseMetricsText(labels);
    out +=
        "# HELP tierscope_sim:prefix_cache_resets Prefix-cache resets (POST /reset_prefix_cache).\n"
        "# TYPE tierscope_sim:prefix_cache_resets counter\n"
        "tierscope_sim:prefix_cache_resets_total{" +
        labels + "} " + std::to_string(m_prefixResets) + "\n";
    // As the Prometheus client libraries' process collector writes it: which process answers.
    std::snprintf(sum, sizeof sum, "%.2f", m_processStart);
    out += lmcacheMetricsText(m_cached.size());
    out += "# HELP process_start_time_seconds Start time of the process since unix epoch in "
           "seconds.\n# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds " +
           std::string(sum) + "\n";
    return out;
}

void EngineSimulator::resetPrefixCache() {
    std::lock_guard lock(m_mutex);
    ++m_prefixResets;
    if (!m_options.kvDir.empty())
        return;
    m_lru.clear();
    m_cached.clear();
}

void EngineSimulator::routes() {
    m_server->Post("/reset_prefix_cache", [this](const httplib::Request&, httplib::Response& res) {
        resetPrefixCache();
        res.status = 200;
    });
    m_server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(metricsText(), "text/plain; version=0.0.4");
    });
    m_server->Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
        const nlohmann::json models = {
            {"object", "list"},
            {"data",
             {{{"id", m_options.model}, {"object", "model"}, {"owned_by", "tierscope-sim"}}}}};
        res.set_content(models.dump(), "application/json");
    });
    m_server->Get("/sim/requests", [this](const httplib::Request&, httplib::Response& res) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : records())
            out.push_back({{"id", r.id},
                           {"prompt_tokens", r.promptTokens},
                           {"cached_tokens", r.cachedTokens},
                           {"queue_s", r.queueS},
                           {"prefill_s", r.prefillS},
                           {"kv_read_s", r.kvReadS},
                           {"kv_bytes_read", r.kvBytesRead},
                           {"ttft_s", r.ttftS},
                           {"fault", r.fault}});
        res.set_content(out.dump(), "application/json");
    });

    auto generate = [this](bool chat) {
        return [this, chat](const httplib::Request& req, httplib::Response& res) {
            const auto arrival = Clock::now();
            const std::int64_t requestId = m_nextId++;
            const auto body = nlohmann::json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object()) {
                res.status = 400;
                res.set_content(
                    R"({"error":{"message":"request body is not a JSON object","type":"BadRequestError"}})",
                    "application/json");
                return;
            }
            const int maxTokens =
                std::max(1, body.value("max_tokens", body.value("max_completion_tokens", 16)));
            const bool stream = body.value("stream", false);
            const bool usage = body.contains("stream_options") &&
                               body["stream_options"].is_object() &&
                               body["stream_options"].value("include_usage", false);
            const std::string prompt = promptOf(body, chat);
            if (roll(m_options.errorRate)) {
                std::lock_guard lock(m_mutex);
                remember({requestId, 0, 0, 0, 0, 0, 0, 0, "error"});
                res.status = 500;
                res.set_content(
                    R"({"error":{"message":"injected failure","type":"InternalServerError"}})",
                    "application/json");
                return;
            }
            const std::string fault = roll(m_options.disconnectRate) ? "disconnect"
                                      : roll(m_options.stallRate)    ? "stall"
                                                                     : "";
            const std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(requestId);
            const std::string object = chat ? "chat.completion.chunk" : "text_completion";
            const long created = static_cast<long>(std::time(nullptr));

            // Runs admission, KV reads and prefill; returns the plan with the TTFT recorded.
            auto prefill = [this, prompt, maxTokens, arrival, fault, requestId](Plan& plan) {
                plan = admit(requestId, prompt, maxTokens);
                plan.arrival = arrival;
                const KvRetrieval kv = retrieveKv(plan.cachedChunks, plan.promptTokens);
                const std::int64_t bytes = kv.bytes;
                const double kvRead = kv.readS;
                const int cached =
                    static_cast<int>(plan.cachedChunks.size()) * m_options.chunkTokens -
                    kv.recomputedTokens;
                const double prefillS = (plan.promptTokens - cached) / m_options.prefillTokensPerS;
                std::this_thread::sleep_for(std::chrono::duration<double>(prefillS));
                storeKv(plan.missChunks);
                if (m_options.cpuKvCapacityTokens > 0) {
                    std::lock_guard tiers(m_tierMutex);
                    keepInCpuTier(plan.missChunks);
                }
                plan.firstToken = Clock::now();
                const double ttft = since(arrival);
                std::lock_guard lock(m_mutex);
                const std::size_t capacity = static_cast<std::size_t>(
                    std::max<std::int64_t>(1, m_options.kvCapacityTokens / m_options.chunkTokens));
                for (const auto hash : plan.missChunks) {
                    if (m_cached.count(hash))
                        continue;
                    m_lru.push_front(hash);
                    m_cached[hash] = m_lru.begin();
                    while (m_cached.size() > capacity) {
                        const auto victim = m_lru.back();
                        m_lru.pop_back();
                        m_cached.erase(victim);
                        if (!m_options.kvDir.empty())
                            ::unlink(kvPath(victim).c_str());
                    }
                }
                observe(ttft, plan.promptTokens, cached);
                const RequestRecord record{
                    plan.id, plan.promptTokens, cached, plan.queueS, prefillS, kvRead, ttft, bytes,
                    fault};
                observeFirstToken(plan, record);
                remember(record);
            };

            if (!stream) {
                Plan plan;
                prefill(plan);
                std::this_thread::sleep_for(
                    std::chrono::duration<double>((maxTokens - 1) / m_options.decodeTokensPerS));
                std::string text;
                for (int t = 0; t < maxTokens; ++t)
                    text += "tok ";
                {
                    std::lock_guard lock(m_mutex);
                    m_generationTokens += maxTokens;
                    observeFinished(plan);
                }
                release(plan);
                nlohmann::json choice =
                    chat
                        ? nlohmann::json{{"index", 0},
                                         {"message", {{"role", "assistant"}, {"content", text}}},
                                         {"finish_reason", "length"}}
                        : nlohmann::json{{"index", 0}, {"text", text}, {"finish_reason", "length"}};
                const nlohmann::json reply = {
                    {"id", id},
                    {"object", chat ? "chat.completion" : "text_completion"},
                    {"created", created},
                    {"model", m_options.model},
                    {"choices", {choice}},
                    {"usage",
                     {{"prompt_tokens", plan.promptTokens},
                      {"completion_tokens", maxTokens},
                      {"total_tokens", plan.promptTokens + maxTokens}}}};
                res.set_content(reply.dump(), "application/json");
                return;
            }

            res.set_chunked_content_provider("text/event-stream", [this, chat, usage, maxTokens,
                                                                   fault, id, object, created,
                                                                   prefill](
                                                                      std::size_t,
                                                                      httplib::DataSink& sink) {
                Plan plan;
                prefill(plan);
                const auto first = Clock::now();
                auto event = [&](const nlohmann::json& choice, const char* finish) {
                    nlohmann::json c = choice;
                    c["index"] = 0;
                    c["finish_reason"] = finish ? nlohmann::json(finish) : nlohmann::json(nullptr);
                    const nlohmann::json chunk = {{"id", id},
                                                  {"object", object},
                                                  {"created", created},
                                                  {"model", m_options.model},
                                                  {"choices", {c}}};
                    const std::string line = "data: " + chunk.dump() + "\n\n";
                    return sink.write(line.data(), line.size());
                };
                auto token = [&](const char* finish) {
                    return chat ? event({{"delta", {{"content", "tok "}}}}, finish)
                                : event({{"text", "tok "}}, finish);
                };
                bool alive =
                    !chat || event({{"delta", {{"role", "assistant"}, {"content", ""}}}}, nullptr);
                int sent = 0;
                for (int t = 0; alive && t < maxTokens; ++t) {
                    if (t > 0)
                        std::this_thread::sleep_until(
                            first + std::chrono::duration<double>(t / m_options.decodeTokensPerS));
                    if (t == maxTokens / 2 && fault == "disconnect")
                        alive = false;
                    if (t == maxTokens / 2 && fault == "stall")
                        std::this_thread::sleep_for(std::chrono::milliseconds(m_options.stallMs));
                    if (alive && (alive = token(t + 1 == maxTokens ? "length" : nullptr)))
                        ++sent;
                }
                {
                    std::lock_guard lock(m_mutex);
                    m_generationTokens += sent;
                    if (alive) // vLLM observes finished requests, not aborted ones
                        observeFinished(plan);
                }
                if (alive && usage) {
                    const nlohmann::json chunk = {{"id", id},
                                                  {"object", object},
                                                  {"created", created},
                                                  {"model", m_options.model},
                                                  {"choices", nlohmann::json::array()},
                                                  {"usage",
                                                   {{"prompt_tokens", plan.promptTokens},
                                                    {"completion_tokens", sent},
                                                    {"total_tokens", plan.promptTokens + sent}}}};
                    const std::string line = "data: " + chunk.dump() + "\n\n";
                    alive = sink.write(line.data(), line.size());
                }
                if (alive) {
                    static const std::string done = "data: [DONE]\n\n";
                    sink.write(done.data(), done.size());
                    sink.done();
                }
                release(plan);
                return alive; // false drops the connection mid-stream
            });
        };
    };
    m_server->Post("/v1/completions", generate(false));
    m_server->Post("/v1/chat/completions", generate(true));
}

} // namespace tierscope
