#pragma once

#include "core/analysis/SessionAnalysis.h"
#include "core/model/Bucket.h"
#include "core/model/MetricInfo.h"
#include "core/view/ChartCatalog.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The first screen's stat tiles: what the story needs at a glance (TTFT p50 / p99 of the last
// 30 s of requests, output tokens/s, GPU busy, storage read rate and its transport, KV-cache
// usage, cache hit rates, the current bottleneck), each with a sparkline over the window, or
// the reason its source is absent. A value with no recent sample is absent, never zero.
class StatTiles {
  public:
    struct Tile {
        std::string id;    // ttft, tokens, gpu, storage, kv, hit, bottleneck
        std::string title; // "TTFT p50 / p99"
        ChartCatalog::Unit unit = ChartCatalog::Unit::Count;
        // now: the latest sample of each series, combined; TTFT: over the last kTtftSpanNs
        std::optional<double> value;
        std::optional<double> second; // the other half of a pair (p99 beside p50)
        std::string secondLabel;      // what `second` is: "p99", "LMCache"
        std::string text;             // instead of a number: the bottleneck class
        std::string color;            // the class's colour, "#rrggbb"; empty for numbers
        std::string detail;           // "NVMe/RDMA", "mean of 2 GPUs"
        std::vector<std::optional<double>> sparkline; // `points` bins over the window
        std::string absentReason;                     // why there is no value
    };
    using Reader = SessionAnalysis::Reader;

    // Over [t0Ns, t1Ns] with `points` sparkline bins. The charts (ChartCatalog::build, with
    // the engine's absence explained) give the absent reasons; `bottlenecks`, when given, the
    // class of its latest window with data.
    static std::vector<Tile> compute(const std::vector<MetricInfo>& metrics,
                                     const std::vector<ChartCatalog::Chart>& charts,
                                     const Reader& read, std::int64_t t0Ns, std::int64_t t1Ns,
                                     int points,
                                     const SessionAnalysis::Result* bottlenecks = nullptr);

    // How old the latest sample may be and still be "now".
    static constexpr std::int64_t kStaleNs = 10'000'000'000LL;
    // The span of the TTFT tile's quantiles: the complete analysis windows that ended in the
    // last 30 s, the span of the engine TTFT chart's quantiles (EngineMetricsMapper).
    static constexpr std::int64_t kTtftSpanNs = 30'000'000'000LL;
};

} // namespace tierscope
