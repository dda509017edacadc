#include "collectors/prometheus/PrometheusFollower.h"

#include <cmath>

namespace tierscope {

PrometheusFollower::PrometheusFollower(PrometheusImport::Options options, double startS)
    : m_options(std::move(options)), m_from(std::ceil(startS / m_options.stepS) * m_options.stepS) {
}

std::optional<PrometheusImport::Summary> PrometheusFollower::poll(double nowS, SampleSink& sink,
                                                                  bool final) {
    const double step = m_options.stepS;
    const double to = std::floor((final ? nowS : nowS - 2 * step) / step) * step;
    if (to < m_from)
        return std::nullopt;
    auto summary = PrometheusImport::run(m_options, m_from, to, sink);
    m_from = to + step;
    return summary;
}

} // namespace tierscope
