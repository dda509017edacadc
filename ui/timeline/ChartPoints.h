#pragma once

#include "core/model/Bucket.h"
#include "core/view/ChartCatalog.h"

#include <QList>
#include <QPointF>
#include <optional>
#include <vector>

namespace tierscope {

// Turns decimated buckets into plot points: min then max at each bucket's middle (one vertical
// stroke per pixel column), x in seconds from `originNs`. Empty buckets have no point, and a
// gap in the data is a gap: where two buckets lie more than kGapFactor times the series' usual
// spacing apart (a source that went quiet, an engine that served nothing), a point with a NaN
// y breaks the line there. Never a straight line across it, never zeros.
class ChartPoints {
  public:
    static constexpr std::int64_t kGapFactor = 3;
    // kGapFactor times the median spacing of the buckets' middles; absent for fewer than three.
    static std::optional<std::int64_t> gapThreshold(const std::vector<Bucket>& buckets);
    static QList<QPointF> fromBuckets(const std::vector<Bucket>& buckets, std::int64_t originNs,
                                      double scale);
    // Largest max over the buckets (0 when empty).
    static double peak(const std::vector<Bucket>& buckets);
    // The value at x (seconds from origin): the mean of the bucket nearest to x, if it lies
    // within the data's own spacing there (its width, or the gap to its closer neighbour, so
    // raw samples of width 0 are found between samples but not across a gap in the data) or
    // within `toleranceS` (a few pixels of the view); false when there is none.
    static bool valueAt(const std::vector<Bucket>& buckets, std::int64_t originNs, double x,
                        double toleranceS, double& value);
    // A stacked chart's parts, each bucket's mean put on the ones below it at the same time:
    // the bands' top edges. Lines (the stack's reference) stay as they are.
    static std::vector<std::vector<Bucket>> stacked(const ChartCatalog::Chart& spec,
                                                    const std::vector<std::vector<Bucket>>& data);
};

} // namespace tierscope
