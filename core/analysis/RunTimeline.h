#pragma once

#include "core/analysis/BottleneckClassifier.h"
#include "core/model/RunInfo.h"

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

    std::optional<double> gpuBusyMeanPct;
    std::optional<double> readPeakGBps; // the highest 1 s mean, from raw samples
    std::optional<double> writePeakGBps;
    std::map<BottleneckClassifier::Class, double> shares; // 0..1; empty: no windows
    // KV retrieve time over TTFT time, 0..1, from the engine's histograms over the run; absent
    // where the engine exposes no LMCache retrieve time or no TTFT.
    std::optional<double> ttftStorageShare;
    std::vector<Line> lines;

    // points: how many points each line may have (about twice the chart's pixel width).
    static RunTimeline read(Store& store, const RunInfo& run, int points = 600);
};

} // namespace tierscope
