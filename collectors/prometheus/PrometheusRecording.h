#pragma once

#include "collectors/prometheus/PrometheusFollower.h"
#include "core/store/RecordingSession.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

// Follows a Prometheus server into a new session of the workspace. `record --prometheus` and
// the GUI's Prometheus feed only drive it, a loop and a timer, so both record the same session
// (its label, notes and tags) the same way.
class PrometheusRecording {
  public:
    struct Options {
        std::string dbPath;
        PrometheusImport::Options import;
        std::string label; // empty: "prometheus <url>"
        std::string storageProfile;
        double followFromS = 0;         // the first step imported
        SampleSink* observer = nullptr; // also gets every reading (the GUI's live buffer)
    };

    // Creates the session; throws StoreError.
    explicit PrometheusRecording(const Options& options);

    std::int64_t session() const { return m_session.id(); }
    // What this poll imported; nullopt when no new step is due. `final`: up to now.
    std::optional<PrometheusImport::Summary> poll(double nowS, bool final = false);
    // Every poll's together: the most series at once, all points, nodes and unmapped lines.
    const PrometheusImport::Summary& total() const { return m_total; }
    // Idempotent; false when the store refused to close the session.
    bool finish(std::int64_t endNs) { return m_session.finish(endNs); }

    // The session a Prometheus recording or import creates.
    static SessionInfo sessionInfo(const PrometheusImport::Options& import,
                                   const std::string& label, const std::string& storageProfile,
                                   std::int64_t startNs);

  private:
    RecordingSession m_session;
    PrometheusFollower m_follower;
    PrometheusImport::Summary m_total;
};

} // namespace tierscope
