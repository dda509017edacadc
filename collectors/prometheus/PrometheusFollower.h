#pragma once

#include "collectors/prometheus/PrometheusImport.h"

#include <optional>

namespace tierscope {

// Follows a Prometheus server as time passes: each poll() imports the steps since the last
// one, on multiples of the step so consecutive ranges neither overlap nor skip, and two steps
// behind now because Prometheus holds a scrape back until it is written. Used by
// `record --prometheus` and the GUI's live feed.
class PrometheusFollower {
  public:
    PrometheusFollower(PrometheusImport::Options options, double startS);

    // nullopt when no new step is due yet. `final`: up to now, without the lag.
    std::optional<PrometheusImport::Summary> poll(double nowS, SampleSink& sink,
                                                  bool final = false);
    const PrometheusImport::Options& options() const { return m_options; }

  private:
    PrometheusImport::Options m_options;
    double m_from;
};

} // namespace tierscope
