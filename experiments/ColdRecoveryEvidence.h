#pragma once

#include "core/compare/ValidityChecks.h"
#include "experiments/EvidenceSnapshot.h"
#include "experiments/ImpliedKv.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

// What a cold-recovery run's measured phase shows about where its KV came from, and the
// validity checks on it, for the experiment runner and `load --dataset cold-recovery` alike:
// the device's reads over the measured phase, the page cache's growth since before the
// populate phase (whose KV writes are what fills it), and the engine counters that moved.
class ColdRecoveryEvidence {
  public:
    // `atStart` is taken before the populate phase, `before` and `after` around the measured
    // phase; `implied` is the KV the documents imply (absent without a KV size); `expect` what
    // the arm declares its KV comes from.
    ColdRecoveryEvidence(
        const EvidenceSnapshot& atStart, const EvidenceSnapshot& before,
        const EvidenceSnapshot& after, std::optional<ImpliedKv> implied,
        ValidityChecks::CacheExpectation expect = ValidityChecks::CacheExpectation{});

    // The summary's "evidence": device, its bytes read, page-cache growth, implied KV bytes,
    // engine counter deltas (null where absent).
    nlohmann::json toJson() const;
    bool hasCounters() const { return m_counters.has_value(); }
    bool hasDevice() const { return m_device.has_value(); }
    bool recompute() const { return m_expect.recompute; }
    // The engine's own reads in the measured phase (its process group's read_bytes).
    std::optional<double> engineReadBytes() const { return m_engineRead; }

    nlohmann::json storageCheck() const;
    nlohmann::json cacheCheck() const;
    nlohmann::json pageCacheCheck() const; // meaningful only where there is a device

  private:
    std::optional<std::string> m_device;
    std::string m_deviceWhy;
    std::optional<double> m_deviceRead;
    std::optional<double> m_pageGrowth;
    std::optional<double> m_implied;
    std::optional<ImpliedKv> m_impliedKv;
    std::optional<double> m_engineRead;
    std::optional<double> m_engineWrite;
    int m_engineProcesses = 0;
    ValidityChecks::CacheExpectation m_expect;
    std::optional<std::map<std::string, double>> m_counters;
};

} // namespace tierscope
