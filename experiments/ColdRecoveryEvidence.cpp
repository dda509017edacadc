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
                                           std::optional<double> impliedBytes)
    : m_device(before.device), m_deviceWhy(before.deviceWhy),
      m_deviceRead(EvidenceSnapshot::readDelta(before, after)), m_implied(impliedBytes) {
    if (atStart.pageCacheBytes && after.pageCacheBytes)
        m_pageGrowth = static_cast<double>(*after.pageCacheBytes) -
                       static_cast<double>(*atStart.pageCacheBytes);
    if (!before.engineCounters.empty() && !after.engineCounters.empty())
        m_counters = EvidenceSnapshot::delta(before.engineCounters, after.engineCounters);
}

nlohmann::json ColdRecoveryEvidence::toJson() const {
    return {{"device", orNull(m_device)},
            {"device_read_bytes", orNull(m_deviceRead)},
            {"page_cache_growth_bytes", orNull(m_pageGrowth)},
            {"implied_kv_bytes", orNull(m_implied)},
            {"engine_counters", orNull(m_counters)}};
}

nlohmann::json ColdRecoveryEvidence::storageCheck() const {
    return ValidityChecks::storageEvidence(m_device, m_deviceWhy, m_deviceRead, m_implied);
}

nlohmann::json ColdRecoveryEvidence::cacheCheck() const {
    return ValidityChecks::cacheEvidence(m_counters, m_deviceRead, m_implied);
}

nlohmann::json ColdRecoveryEvidence::pageCacheCheck() const {
    std::optional<double> storeRead;
    if (m_counters && m_counters->count("lmcache_remote_read_bytes"))
        storeRead = m_counters->at("lmcache_remote_read_bytes");
    return ValidityChecks::pageCache(m_pageGrowth, m_deviceRead, m_implied, storeRead);
}

} // namespace tierscope
