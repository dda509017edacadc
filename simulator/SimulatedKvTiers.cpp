#include "simulator/SimulatedKvTiers.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tierscope {

SimulatedKvTiers::SimulatedKvTiers(const EngineSimulator::Options& options) : m_options(options) {
    if (!m_options.kvDir.empty())
        m_kvWriter = std::thread(&SimulatedKvTiers::kvWriterLoop, this);
}

SimulatedKvTiers::~SimulatedKvTiers() {
    {
        std::lock_guard lock(m_kvMutex);
        m_kvStop = true;
    }
    m_kvWork.notify_all();
    m_kvIdle.notify_all();
    if (m_kvWriter.joinable())
        m_kvWriter.join();
}

std::string SimulatedKvTiers::kvPath(std::uint64_t chunkHash) const {
    char name[32];
    std::snprintf(name, sizeof name, "/%016llx.kv", static_cast<unsigned long long>(chunkHash));
    return m_options.kvDir + name;
}

double SimulatedKvTiers::readKv(const std::vector<std::uint64_t>& chunks, std::int64_t& bytes) {
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
    return std::chrono::duration<double>(Clock::now() - started).count();
}

// A slower tier: the read of `bytes` ends no sooner than bytes / kvReadBytesPerS after it began.
void SimulatedKvTiers::paceKvRead(Clock::time_point started, std::int64_t bytes) const {
    if (m_options.kvReadBytesPerS <= 0 || bytes <= 0)
        return;
    std::this_thread::sleep_until(
        started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                      static_cast<double>(bytes) / m_options.kvReadBytesPerS)));
}

void SimulatedKvTiers::storeKv(const std::vector<std::uint64_t>& chunks) {
    if (!m_options.kvDir.empty() && !chunks.empty()) {
        {
            std::lock_guard lock(m_kvMutex);
            m_kvQueue.insert(m_kvQueue.end(), chunks.begin(), chunks.end());
        }
        m_kvWork.notify_one();
    }
    if (m_options.cpuKvCapacityTokens > 0) {
        std::lock_guard tiers(m_tierMutex);
        keepInCpuTier(chunks);
    }
}

void SimulatedKvTiers::removeKv(std::uint64_t chunkHash) {
    if (!m_options.kvDir.empty())
        ::unlink(kvPath(chunkHash).c_str());
}

void SimulatedKvTiers::kvWriterLoop() {
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
            SimulatedKvTiers* self;
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

void SimulatedKvTiers::waitForKvWrites() {
    std::unique_lock lock(m_kvMutex);
    m_kvIdle.wait(lock, [&] { return m_kvStop || (m_kvQueue.empty() && !m_kvWriting); });
}

void SimulatedKvTiers::keepInCpuTier(const std::vector<std::uint64_t>& chunks) {
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

SimulatedKvTiers::KvRetrieval SimulatedKvTiers::retrieveKv(const std::vector<std::uint64_t>& chunks,
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

std::string SimulatedKvTiers::lmcacheMetricsText(std::size_t diskChunks) const {
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
    // count as "remote" reads. Under vLLM's OffloadingConnector there is no LMCache.
    if (m_options.kvConnector == "lmcache") {
        metric("lmcache:num_retrieve_requests", "counter", "Total number of retrieve requests",
               m_lmRetrieves);
        metric("lmcache:num_requested_tokens", "counter",
               "Total number of tokens requested for retrieval", m_lmRequestedTokens);
        metric("lmcache:num_hit_tokens", "counter",
               "Total number of cache hit tokens from retrieval", m_lmHitTokens);
        metric("lmcache:num_remote_read_requests", "counter",
               "Total number of read requests to the KV store (--kv-dir)", m_lmReadRequests);
        metric("lmcache:num_remote_read_bytes", "counter",
               "Total number of bytes read from the KV store (--kv-dir)", m_lmReadBytes);
        metric("lmcache:local_cache_usage", "gauge", "Local (CPU) cache usage in bytes",
               static_cast<double>(m_cpuCached.size()) * chunkBytes);
        metric("lmcache:local_storage_usage", "gauge", "Local storage (--kv-dir) usage in bytes",
               static_cast<double>(diskChunks) * chunkBytes);
    }
    // The same reads under vLLM's tiering names: --kv-dir is the tier below the CPU one.
    out += "# HELP vllm:kv_offload_tiering_read_bytes Bytes read from the tier.\n"
           "# TYPE vllm:kv_offload_tiering_read_bytes counter\n"
           "vllm:kv_offload_tiering_read_bytes_total{engine=\"0\"," +
           labels + ",tier=\"1:fs\"} " + std::to_string(m_lmReadBytes) + "\n";
    metric("tierscope_sim:kv_cpu_hit_tokens", "counter",
           "Cached tokens served from the CPU tier, without I/O", m_cpuHitTokens);
    metric("tierscope_sim:kv_recomputed_tokens", "counter",
           "Cached tokens recomputed instead of read (--recompute-fallback)", m_recomputedTokens);
    return out;
}

std::pair<double, double> SimulatedKvTiers::hitTokensByTier() const {
    std::lock_guard lock(m_tierMutex);
    return {m_cpuHitTokens, std::max(0.0, m_lmHitTokens - m_cpuHitTokens)};
}

// LMCache's multi-process server, as its OpenTelemetry exporter names the lookups: tokens
// asked for, found, found in its L1 (the CPU tier) and in its L2 (--kv-dir), and the L2 loads.
std::string SimulatedKvTiers::lmcacheMpText() const {
    std::lock_guard lock(m_tierMutex);
    const std::string labels = "{model_name=\"" + m_options.model + "\"}";
    std::string out;
    auto counter = [&](const std::string& name, const std::string& series, double v) {
        out += "# TYPE " + name + " counter\n" + name + "_total" + series + " " +
               std::to_string(v) + "\n";
    };
    counter("lmcache_mp_lookup_requested_tokens", labels, m_lmRequestedTokens);
    counter("lmcache_mp_lookup_hit_tokens", labels, m_lmHitTokens);
    counter("lmcache_mp_lookup_hit_l1_tokens", labels, m_cpuHitTokens);
    counter("lmcache_mp_lookup_hit_l2_tokens", labels,
            std::max(0.0, m_lmHitTokens - m_cpuHitTokens));
    counter("lmcache_mp_l2_load_completed_requests", "{l2_name=\"fs\"}", m_lmReadRequests);
    return out;
}

} // namespace tierscope
