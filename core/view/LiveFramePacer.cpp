#include "core/view/LiveFramePacer.h"

#include <algorithm>

namespace tierscope {

namespace {
constexpr std::int64_t kMillisecond = 1000000LL;
}

std::int64_t LiveFramePacer::pixelNs(std::int64_t windowNs, int plotWidthPx) {
    return std::max<std::int64_t>(kMillisecond, windowNs / std::max(1, plotWidthPx));
}

std::int64_t LiveFramePacer::stepNs(std::int64_t windowNs, int plotWidthPx, std::int64_t periodNs) {
    const std::int64_t pixel = pixelNs(windowNs, plotWidthPx);
    return periodNs <= pixel ? pixel : (periodNs + pixel - 1) / pixel * pixel;
}

std::int64_t LiveFramePacer::edgeOf(std::int64_t nowNs, std::int64_t windowNs, int plotWidthPx,
                                    std::int64_t periodNs) {
    const std::int64_t step = stepNs(windowNs, plotWidthPx, periodNs);
    // Floor, not truncation: a clock before the epoch is not expected, but must not round up.
    const std::int64_t q = nowNs / step - (nowNs % step < 0 ? 1 : 0);
    return q * step;
}

std::optional<std::int64_t> LiveFramePacer::due(std::int64_t nowNs, std::int64_t windowNs,
                                                int plotWidthPx, std::uint64_t version) {
    const std::int64_t edge = edgeOf(nowNs, windowNs, plotWidthPx, m_period);
    if (!m_force && (version == m_version || edge == m_edge))
        return std::nullopt;
    m_force = false;
    m_edge = edge;
    m_version = version;
    return edge;
}

} // namespace tierscope
