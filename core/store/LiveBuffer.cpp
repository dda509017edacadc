#include "core/store/LiveBuffer.h"

#include "core/store/Decimator.h"

#include <algorithm>

namespace tierscope {

LiveBuffer::LiveBuffer(std::int64_t retentionNs) : m_retention(retentionNs) {}

void LiveBuffer::write(std::int64_t tNs, std::span<const Reading> readings) {
    std::lock_guard lock(m_mutex);
    for (const Reading& r : readings) {
        auto it = m_index.find(r.metric.path);
        if (it == m_index.end()) {
            Series s;
            s.info.id = static_cast<std::int64_t>(m_series.size()) + 1;
            s.info.descriptor = r.metric;
            m_series.push_back(std::move(s));
            it = m_index.emplace(r.metric.path, m_series.size() - 1).first;
        }
        auto& samples = m_series[it->second].samples;
        samples.emplace_back(tNs, r.value);
        while (!samples.empty() && samples.front().first < tNs - m_retention)
            samples.pop_front();
    }
    if (m_oldest == 0)
        m_oldest = tNs;
    m_newest = std::max(m_newest, tNs);
    m_oldest = std::max(m_oldest, m_newest - m_retention);
    ++m_version;
}

std::vector<MetricInfo> LiveBuffer::metrics() const {
    std::lock_guard lock(m_mutex);
    std::vector<MetricInfo> out;
    out.reserve(m_series.size());
    for (const auto& s : m_series)
        out.push_back(s.info);
    return out;
}

void LiveBuffer::clear() {
    std::lock_guard lock(m_mutex);
    m_series.clear();
    m_index.clear();
    m_newest = m_oldest = 0;
    ++m_version;
}

std::size_t LiveBuffer::seriesCount() const {
    std::lock_guard lock(m_mutex);
    return m_series.size();
}

std::vector<Bucket> LiveBuffer::decimated(std::int64_t metricId, std::int64_t t0Ns,
                                          std::int64_t t1Ns, int slots) const {
    std::lock_guard lock(m_mutex);
    if (metricId < 1 || metricId > static_cast<std::int64_t>(m_series.size()) || t1Ns <= t0Ns)
        return {};
    const auto& samples = m_series[static_cast<std::size_t>(metricId - 1)].samples;
    Decimator d(t0Ns, t1Ns, std::max(1, slots));
    auto it = std::lower_bound(samples.begin(), samples.end(), std::make_pair(t0Ns, -1e308));
    for (; it != samples.end() && it->first <= t1Ns; ++it)
        d.add(it->first, it->second);
    return d.result();
}

std::int64_t LiveBuffer::newestNs() const {
    std::lock_guard lock(m_mutex);
    return m_newest;
}

std::int64_t LiveBuffer::oldestNs() const {
    std::lock_guard lock(m_mutex);
    return m_oldest;
}

std::uint64_t LiveBuffer::version() const {
    std::lock_guard lock(m_mutex);
    return m_version;
}

} // namespace tierscope
