#pragma once

#include "core/analysis/BottleneckClassifier.h"
#include "core/model/MetricInfo.h"
#include "core/util/TimeRangeText.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace tierscope {

class Store;

// The figures of one time range of a recorded session, as the timeline's range panel and
// `tierscope analyze --range` show them: per series count, min, mean, p50, p99 and last from
// the raw samples (exact, never from decimated buckets), the same for the range of equal
// length before it, the requests sent in it and the share of each bottleneck class. Times are
// nanoseconds from the session's start; a range is [from, to).
class RangeStatistics {
  public:
    // As typed (TimeRangeText: "10s..40s", "1m..2m30s", "..40s", "10s..").
    using Range = TimeRangeText::Range;
    // The range with its open ends filled in by the session's length, and cut at its end;
    // absent when that leaves nothing.
    static std::optional<std::pair<std::int64_t, std::int64_t>> resolve(const Range& range,
                                                                        std::int64_t lengthNs);

    struct Figures {
        std::size_t count = 0;
        double min = 0, mean = 0, p50 = 0, p99 = 0, last = 0;
    };
    // Absent for no values: a series that reported nothing has no minimum, not a 0. The
    // percentiles interpolate linearly, as every other percentile of the project.
    static std::optional<Figures> figuresOf(const std::vector<double>& values);
    // (now - before) / |before|; absent without both, or when `before` is 0.
    static std::optional<double> change(const std::optional<Figures>& before,
                                        const std::optional<Figures>& now);

    struct Series {
        MetricInfo metric;
        std::optional<Figures> now;
        std::optional<Figures> before; // the range of equal length before it
        std::optional<double> meanChange;
    };
    struct Requests {
        std::size_t count = 0;  // sent in the range, failed ones too
        std::size_t failed = 0; // no answer, an error, or a status other than 200
        // Of the answered requests, from the actual send (the timeline's TTFT series).
        std::optional<double> ttftP50S, ttftP99S;
    };
    struct Result {
        std::int64_t sessionId = 0;
        std::int64_t fromNs = 0, toNs = 0;
        // [beforeFromNs, fromNs): as long as the range, clipped at the session's start; empty
        // (beforeFromNs == fromNs) for a range that starts with the session.
        std::int64_t beforeFromNs = 0;
        std::vector<Series> series; // in the order of Store::metrics
        Requests requests;
        std::optional<Requests> requestsBefore; // absent when the range before is empty
        std::int64_t windowNs = 0;
        // The share of the range's analysis windows per class, as SessionAnalysis counts them.
        std::map<BottleneckClassifier::Class, double> shares;

        const Series* find(std::int64_t metricId) const;
    };

    static constexpr std::int64_t kDefaultWindowNs = 10'000'000'000;
    // [fromNs, toNs) of the session, for the metrics `metricIds` (empty: every metric).
    // Throws StoreError (NotFound) for an unknown session.
    static Result compute(Store& store, std::int64_t sessionId, std::int64_t fromNs,
                          std::int64_t toNs, std::int64_t windowNs = kDefaultWindowNs,
                          const std::set<std::int64_t>& metricIds = {});
};

} // namespace tierscope
