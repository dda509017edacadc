#pragma once

#include "simulator/EngineSimulator.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tierscope {

// The KV store behind the simulator's prefix cache, as LMCache's tiers: --kv-dir holds one file
// per chunk, written by a thread of its own and read back with O_DIRECT when the filesystem
// allows it, and an optional CPU (DRAM) tier in front of it serves chunks without I/O. Without
// --kv-dir it holds nothing, and cached chunks cost nothing.
class SimulatedKvTiers {
    using Clock = std::chrono::steady_clock;

  public:
    struct KvRetrieval {
        double readS = 0;
        std::int64_t bytes = 0;
        int recomputedTokens = 0;
    };

    explicit SimulatedKvTiers(const EngineSimulator::Options& options);
    ~SimulatedKvTiers(); // stops and joins the KV writer
    SimulatedKvTiers(const SimulatedKvTiers&) = delete;
    SimulatedKvTiers& operator=(const SimulatedKvTiers&) = delete;

    // The cached chunks' KV: from the CPU tier, else read from --kv-dir (or recomputed).
    KvRetrieval retrieveKv(const std::vector<std::uint64_t>& chunks, int promptTokens);
    // Newly prefilled chunks: queued for --kv-dir's writer, and kept in the CPU tier.
    void storeKv(const std::vector<std::uint64_t>& chunks);
    // The prefix cache evicted the chunk: its file in --kv-dir goes too.
    void removeKv(std::uint64_t chunkHash);
    std::string lmcacheMetricsText(std::size_t diskChunks) const;
    // LMCache's multi-process server's /metrics (kvConnector "lmcache-mp"): its lookups.
    std::string lmcacheMpText() const;
    // Cached tokens served from the CPU tier and from --kv-dir (read, not recomputed).
    std::pair<double, double> hitTokensByTier() const;
    bool kvDirectIo() const { return m_kvDirectIo; }

  private:
    std::string kvPath(std::uint64_t chunkHash) const; // one file per KV chunk in --kv-dir
    double readKv(const std::vector<std::uint64_t>& chunks, std::int64_t& bytes);
    void paceKvRead(Clock::time_point started, std::int64_t bytes) const;
    void kvWriterLoop();
    void waitForKvWrites();
    void keepInCpuTier(const std::vector<std::uint64_t>& chunks); // with m_tierMutex held

    const EngineSimulator::Options m_options;

    std::mutex m_kvMutex;
    std::condition_variable m_kvWork;
    std::deque<std::uint64_t> m_kvQueue;
    bool m_kvStop = false;
    std::thread m_kvWriter;
    bool m_kvDirectIo = true;
    bool m_kvWriting = false; // guarded by m_kvMutex
    std::condition_variable m_kvIdle;

    // The CPU tier and the LMCache-named counters. Taken after the engine's m_mutex
    // (metricsText), never the other way round.
    mutable std::mutex m_tierMutex;
    std::list<std::uint64_t> m_cpuLru;
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> m_cpuCached;
    double m_readBytesPerS = 0; // the KV reads' speed so far; 0: none yet
    double m_lmRetrieves = 0, m_lmRequestedTokens = 0, m_lmHitTokens = 0, m_lmReadBytes = 0,
           m_lmReadRequests = 0, m_recomputedTokens = 0, m_cpuHitTokens = 0;
};

} // namespace tierscope
