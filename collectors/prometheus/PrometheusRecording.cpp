#include "collectors/prometheus/PrometheusRecording.h"

#include "core/util/Version.h"
#include "core/util/WallClock.h"

#include <algorithm>

namespace tierscope {

SessionInfo PrometheusRecording::sessionInfo(const PrometheusImport::Options& import,
                                             const std::string& label,
                                             const std::string& storageProfile,
                                             std::int64_t startNs) {
    SessionInfo info;
    info.label = label.empty() ? "prometheus " + import.url : label;
    info.storageProfile = storageProfile;
    info.host = import.url;
    info.startNs = startNs;
    info.notes = "from Prometheus " + import.url + ", nodes " + import.nodes;
    info.tags = "prometheus";
    info.toolVersion = kToolVersion;
    return info;
}

PrometheusRecording::PrometheusRecording(const Options& options)
    : m_session({options.dbPath, {}, options.observer},
                sessionInfo(options.import, options.label, options.storageProfile,
                            WallClock::systemNowNs())),
      m_follower(options.import, options.followFromS) {}

std::optional<PrometheusImport::Summary> PrometheusRecording::poll(double nowS, bool final) {
    auto s = m_follower.poll(nowS, m_session.sink(), final);
    if (!s)
        return s;
    m_total.series = std::max(m_total.series, s->series);
    m_total.points += s->points;
    m_total.nodes.insert(s->nodes.begin(), s->nodes.end());
    for (const auto& u : s->unmapped)
        if (std::find(m_total.unmapped.begin(), m_total.unmapped.end(), u) ==
            m_total.unmapped.end())
            m_total.unmapped.push_back(u);
    return s;
}

} // namespace tierscope
