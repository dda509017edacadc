#pragma once

#include "core/analysis/BottleneckClassifier.h"
#include "core/model/Bucket.h"
#include "core/model/MetricInfo.h"
#include "core/stats/TtftBreakdown.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// Splits a recorded session into windows and names each window's bottleneck from the stored
// series (per block device, per GPU, engine metrics), with the time share of each class.
class SessionAnalysis {
  public:
    // What "near its ceiling" is measured against, per storage target of the session.
    struct Ceiling {
        std::optional<double> bytesPerS;
        std::optional<double> iops;
        std::optional<double> unloadedAwaitS;
        bool probed = false; // false: the best bandwidth recorded in the workspace
    };
    // By storage name as in the session's paths: "nvme0n1", or "workload /mnt/kv".
    using Ceilings = std::map<std::string, Ceiling>;

    struct Window {
        std::int64_t t0Ns = 0;
        BottleneckClassifier::Window input; // the measurements
        BottleneckClassifier::Verdict verdict;
        TtftBreakdown ttft; // the window's requests, from the engine histograms' sums and counts
    };
    struct Result {
        std::int64_t windowNs = 0;
        std::vector<Window> windows;
        std::map<BottleneckClassifier::Class, double> shares; // of the windows, 0..1
        Ceilings ceilings;
        TtftBreakdown ttft; // every window's, added up

        // The complete windows that end in (t0Ns, t1Ns] (a window still filling is not judged),
        // their requests added up; `spanNs` gets the time they cover.
        TtftBreakdown ttftWithin(std::int64_t t0Ns, std::int64_t t1Ns,
                                 std::int64_t* spanNs = nullptr) const;
    };

    static Result analyze(Store& store, std::int64_t sessionId, std::int64_t windowNs,
                          const BottleneckClassifier::Thresholds& thresholds = {});
    // The same over [t0Ns, t1Ns) of the session, e.g. one run, against ceilings(store, id):
    // two runs of one workspace are judged on one scale.
    static Result analyzeRange(Store& store, std::int64_t sessionId, std::int64_t t0Ns,
                               std::int64_t t1Ns, std::int64_t windowNs,
                               const BottleneckClassifier::Thresholds& thresholds = {});
    // The ceiling of each storage target of the session. Without a probe: the best 1 s
    // bandwidth (read + write) recorded on a device of that name on the same host in the
    // workspace's other sessions. Never the session's own seconds: a series is not judged
    // against a ceiling made of itself.
    static Ceilings ceilings(Store& store, std::int64_t sessionId);
    // The same for these devices too, which a live session may have measured before its
    // series reached the store.
    static Ceilings ceilings(Store& store, std::int64_t sessionId,
                             const std::set<std::string>& devices);
    // The same from any source of decimated series: the store, or the live view's buffer.
    using Reader = std::function<std::vector<Bucket>(std::int64_t metricId, std::int64_t t0Ns,
                                                     std::int64_t t1Ns, int points)>;
    static Result analyzeSeries(const std::vector<MetricInfo>& metrics, const Reader& read,
                                std::int64_t t0Ns, std::int64_t t1Ns, std::int64_t windowNs,
                                const Ceilings& ceilings = {},
                                const BottleneckClassifier::Thresholds& thresholds = {},
                                const std::set<std::string>& tierDevices = {});
    // The block devices under the KV tier directories the session's runs name (their
    // summaries' kv_tier: the device, its members, its NVMe paths).
    static std::set<std::string> tierDevices(Store& store, std::int64_t sessionId);
    // The storage target a metric measures and which of its quantities ("bytes", "iops",
    // "await", "queue_depth", "util"); absent for other metrics and for block/total.
    static std::optional<std::pair<std::string, std::string>> storageOf(const MetricInfo& m);
};

} // namespace tierscope
