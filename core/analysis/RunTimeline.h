#pragma once

#include "core/analysis/BottleneckClassifier.h"
#include "core/analysis/BytesRoute.h"
#include "core/analysis/RunEnergy.h"
#include "core/model/RunInfo.h"
#include "core/stats/TtftBreakdown.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

class Store;

// What the recorded timeline says about one run: the means and peaks the comparison needs,
// its bottleneck shares, and decimated lines for the aligned-timeline chart. Workload
// bandwidth (workload/*) wins over the block collector's, which cannot see tmpfs or NFS.
struct RunTimeline {
    struct Line {
        std::string name;                              // "storage read", "GPU busy", ...
        std::string unit;                              // "GB/s", "%", "s"
        std::vector<std::pair<double, double>> points; // seconds since run start, value
    };

    double durationS = 0; // the run's span
    std::optional<double> gpuBusyMeanPct;
    RunEnergy gpuEnergy;                // the GPUs' energy counters' increase over the run
    std::optional<double> readPeakGBps; // the highest 1 s mean, from raw samples
    std::optional<double> writePeakGBps;
    std::map<BottleneckClassifier::Class, double> shares; // 0..1; empty: no windows
    // Where the run's TTFT went, from the engine's histograms over the run (the sums and
    // counts of its observations): empty where no engine was recorded during the run.
    TtftBreakdown ttft;
    // Per engine endpoint scraped during the run (only its arm's, where the run's summary names
    // them in engine_endpoints), each catalog role of the engines it speaks: served (true) or
    // not (false), over the run (EngineRoles).
    std::map<std::string, std::map<std::string, bool>> engineRoles;
    // The engine's KV route over the run, from its own endpoints' interval increases scraped
    // within it: prompt tokens by source, the bytes its offload tiers read, and the mean number
    // of requests deferred (waiting for their KV from a connector). Absent where not served.
    std::map<std::string, double> promptTokensBySource;
    std::optional<double> kvTierReadBytes;    // every tier below the primary one
    std::optional<double> kvOffloadLoadBytes; // into the GPU from the first offload tier
    std::optional<double> deferredMean;
    // The bytes route over the run: the engine's tier and GPU-load bytes beside the bytes of
    // the block device under the tier directory its summary names ("kv_tier"), the NICs, the
    // RDMA ports and the GPUs' PCIe receive (rates integrated over their own intervals).
    BytesRoute bytesRoute;
    std::vector<Line> lines;

    // points: how many points each line may have (about twice the chart's pixel width).
    static RunTimeline read(Store& store, const RunInfo& run, int points = 600);
};

} // namespace tierscope
