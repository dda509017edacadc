#include "core/store/Decimator.h"

#include <algorithm>

namespace tierscope {

Decimator::Decimator(std::int64_t t0Ns, std::int64_t t1Ns, int slots)
    : m_t0(t0Ns), m_t1(std::max(t1Ns, t0Ns)),
      m_slots(static_cast<std::size_t>(std::max(slots, 1))) {
    const std::int64_t span = m_t1 - m_t0 + 1;
    const auto n = static_cast<std::int64_t>(m_slots.size());
    m_width = std::max<std::int64_t>(1, (span + n - 1) / n);
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
        m_slots[i].tNs = m_t0 + static_cast<std::int64_t>(i) * m_width;
        m_slots[i].widthNs = m_width;
    }
}

int Decimator::slotOf(std::int64_t tNs) const {
    if (tNs < m_t0 || tNs > m_t1)
        return -1;
    const auto slot = static_cast<std::size_t>((tNs - m_t0) / m_width);
    return static_cast<int>(std::min(slot, m_slots.size() - 1));
}

void Decimator::add(std::int64_t tNs, double value) {
    const int slot = slotOf(tNs);
    if (slot >= 0)
        m_slots[static_cast<std::size_t>(slot)].add(value);
}

void Decimator::addBucket(std::int64_t tNs, double min, double max, double sum,
                          std::int64_t count) {
    const int slot = slotOf(tNs);
    if (slot >= 0)
        m_slots[static_cast<std::size_t>(slot)].merge(min, max, sum, count);
}

std::vector<Bucket> Decimator::result() const {
    std::vector<Bucket> out;
    out.reserve(m_slots.size());
    for (const Bucket& b : m_slots)
        if (b.count > 0)
            out.push_back(b);
    return out;
}

std::vector<Bucket> Decimator::decimate(std::span<const Sample> samples, std::int64_t t0Ns,
                                        std::int64_t t1Ns, int slots) {
    Decimator d(t0Ns, t1Ns, slots);
    for (const Sample& s : samples)
        d.add(s.tNs, s.value);
    return d.result();
}

} // namespace tierscope
