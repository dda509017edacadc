#pragma once

#include "workloads/IoJob.h"
#include "workloads/IoRunner.h"
#include "workloads/StorageDataset.h"

#include <atomic>
#include <nlohmann/json.hpp>
#include <string>

namespace tierscope {

// LMCache-style KV restore: `requests` requests, `concurrency` at a time, each reading the
// chunk files of a cached prefix of `tokens` tokens. A request's restore time is the storage
// part of its TTFT: the engine cannot skip the prefill of a prefix before its KV is loaded.
class KvRestoreWorkload {
  public:
    struct Options {
        std::string dir;
        int concurrency = 16;
        int requests = 0; // 0: one per prepared prefix
        int tokens = 0;   // 0: the prepared prefix length
        int depth = 4;    // reads in flight per request
        std::uint32_t blockSize = 1 << 20;
        bool direct = true;
    };

    // Reads the prepared layout from the directory's manifest; throws WorkloadError when there
    // is none or the options do not fit it.
    KvRestoreWorkload(Options options, const StorageManifest& manifest);

    // A million requests take seconds to plan: `cancel` (optional) stops early, with the job
    // cut short; the caller checks it before running what it got.
    IoJob job(const std::atomic<bool>* cancel = nullptr) const;
    nlohmann::json summarize(const IoRunner::Result& result) const;
    nlohmann::json params() const;
    const StorageDataset::KvLayout& layout() const { return m_layout; }
    int requests() const { return m_requests; }
    int tokens() const { return m_tokens; }

  private:
    Options m_options;
    StorageDataset::KvLayout m_layout;
    std::string m_dir;
    int m_requests = 0;
    int m_tokens = 0;
};

} // namespace tierscope
