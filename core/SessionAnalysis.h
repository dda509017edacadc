#pragma once

#include "core/BottleneckClassifier.h"
#include "core/Bucket.h"
#include "core/MetricInfo.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// Splits a recorded session into windows and names each window's bottleneck from the stored
// series (block, GPU and engine metrics), with the time share of each class.
class SessionAnalysis {
  public:
    struct Window {
        std::int64_t t0Ns = 0;
        BottleneckClassifier::Verdict verdict;
    };
    struct Result {
        std::int64_t windowNs = 0;
        std::vector<Window> windows;
        std::map<BottleneckClassifier::Class, double> shares; // of the windows, 0..1
    };

    static Result analyze(Store& store, std::int64_t sessionId, std::int64_t windowNs,
                          const BottleneckClassifier::Thresholds& thresholds = {});
    // The same over [t0Ns, t1Ns) of the session, e.g. one run. The storage ceiling is the
    // highest bandwidth seen in that span.
    static Result analyzeRange(Store& store, std::int64_t sessionId, std::int64_t t0Ns,
                               std::int64_t t1Ns, std::int64_t windowNs,
                               const BottleneckClassifier::Thresholds& thresholds = {});
    // The same from any source of decimated series: the store, or the live view's buffer.
    using Reader = std::function<std::vector<Bucket>(std::int64_t metricId, std::int64_t t0Ns,
                                                     std::int64_t t1Ns, int points)>;
    static Result analyzeSeries(const std::vector<MetricInfo>& metrics, const Reader& read,
                                std::int64_t t0Ns, std::int64_t t1Ns, std::int64_t windowNs,
                                const BottleneckClassifier::Thresholds& thresholds = {});
};

} // namespace tierscope
