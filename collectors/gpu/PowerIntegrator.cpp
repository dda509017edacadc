#include "collectors/gpu/PowerIntegrator.h"

namespace tierscope {

double PowerIntegrator::add(std::int64_t tNs, double watts) {
    // A clock that stepped back gives no interval: the reading only becomes the next start.
    if (m_lastNs && tNs > *m_lastNs)
        m_joules += (m_lastW + watts) / 2 * static_cast<double>(tNs - *m_lastNs) / 1e9;
    m_lastNs = tNs;
    m_lastW = watts;
    return m_joules;
}

} // namespace tierscope
