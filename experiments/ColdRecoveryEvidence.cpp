#include "experiments/ColdRecoveryEvidence.h"

#include "core/compare/ValidityChecks.h"

namespace tierscope {

namespace {

template <typename T> nlohmann::json orNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

ColdRecoveryEvidence::ColdRecoveryEvidence(const EvidenceSnapshot& atStart,
                                           const EvidenceSnapshot& before,
                                           const EvidenceSnapshot& after,
                                           std::optional<ImpliedKv> implied,
                                           ValidityChecks::CacheExpectation expect)
    : m_device(before.device), m_deviceWhy(before.deviceWhy),
      m_deviceRead(EvidenceSnapshot::readDelta(before, after)), m_impliedKv(implied),
      m_engineRead(EvidenceSnapshot::engineReadDelta(before, after)), m_expect(expect) {
    if (implied)
        m_implied = implied->bytes;
    if (m_engineRead && after.engineWriteBytes && before.engineWriteBytes &&
        *after.engineWriteBytes >= *before.engineWriteBytes)
        m_engineWrite = static_cast<double>(*after.engineWriteBytes - *before.engineWriteBytes);
    m_engineProcesses = after.engineProcesses;
    if (atStart.pageCacheBytes && after.pageCacheBytes)
        m_pageGrowth = static_cast<double>(*after.pageCacheBytes) -
                       static_cast<double>(*atStart.pageCacheBytes);
    if (!before.engineCounters.empty() && !after.engineCounters.empty())
        m_counters = EvidenceSnapshot::delta(before.engineCounters, after.engineCounters);
}

nlohmann::json ColdRecoveryEvidence::toJson() const {
    nlohmann::json out = {{"device", orNull(m_device)},
                          {"device_read_bytes", orNull(m_deviceRead)},
                          {"engine_read_bytes", orNull(m_engineRead)},
                          {"engine_write_bytes", orNull(m_engineWrite)},
                          {"page_cache_growth_bytes", orNull(m_pageGrowth)},
                          {"implied_kv_bytes", orNull(m_implied)},
                          {"engine_counters", orNull(m_counters)}};
    if (m_impliedKv) {
        out["implied_kv_tokens"] = m_impliedKv->tokens;
        out["implied_kv_from"] = m_impliedKv->from;
    }
    if (m_expect.recompute)
        out["cache"] = "recompute";
    return out;
}

nlohmann::json ColdRecoveryEvidence::storageCheck() const {
    ValidityChecks::Reads reads;
    reads.device = m_device;
    reads.deviceWhy = m_deviceWhy;
    reads.deviceBytes = m_deviceRead;
    reads.engineBytes = m_engineRead;
    reads.engineProcesses = m_engineProcesses;
    return ValidityChecks::storageEvidence(reads, m_implied, m_expect);
}

nlohmann::json ColdRecoveryEvidence::cacheCheck() const {
    // The engine's reads, where known, say better than the device's whether hits came from
    // storage at all.
    return ValidityChecks::cacheEvidence(m_counters, m_engineRead ? m_engineRead : m_deviceRead,
                                         m_implied, m_expect);
}

nlohmann::json ColdRecoveryEvidence::pageCacheCheck() const {
    std::optional<double> storeRead;
    if (m_counters && m_counters->count("lmcache_remote_read_bytes"))
        storeRead = m_counters->at("lmcache_remote_read_bytes");
    return ValidityChecks::pageCache(m_pageGrowth, m_deviceRead, m_implied, storeRead);
}

} // namespace tierscope
