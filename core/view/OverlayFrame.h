#pragma once

#include "core/model/Bucket.h"
#include "core/model/DeviceRecord.h"
#include "core/model/MetricInfo.h"
#include "core/model/RunInfo.h"
#include "core/view/ChartCatalog.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tierscope {

// Two sides of an A/B (two runs, two arms, two sessions) drawn on one set of axes: every side's
// time ranges aligned at their own start ("seconds since the start"), side B shifted by an
// offset, per-request TTFT dots, and both sides' TTFT histograms on one set of bins.
//
// An arm of several runs draws each run as its own thin line in the arm's colour rather than a
// per-second median: the run is the comparison's unit, and the spread between an arm's runs is
// what says whether A and B differ by more than their noise, which a median line would hide
// (and a median of runs that ended at different times would be a run nobody made).
struct OverlayFrame {
    // A series the overlay can draw, named as the timeline names it. Sessions number their
    // metrics each their own way, so a series is matched across sides by its metric path.
    struct Series {
        std::string key;   // the metric path, or kTtft / kTokens for the requests' series
        std::string chart; // the timeline chart's title: "GPU busy"
        std::string name;  // the timeline series' name: "GPU 0 (MI308X)"
        ChartCatalog::Unit unit = ChartCatalog::Unit::Count;
        std::int64_t metricId = 0; // in the session it was listed from; 0 for the requests'
    };
    static constexpr const char* kTtft = "request/ttft";     // a dot per request
    static constexpr const char* kTokens = "request/tokens"; // output tokens/s, per second

    // One run, or a whole session, aligned at t0Ns.
    struct Range {
        std::string label; // "run 7 (disk r2)"
        std::int64_t t0Ns = 0;
        std::int64_t t1Ns = 0;
        std::map<std::string, std::vector<Bucket>> series; // by Series::key, in time order
        std::vector<StoredRequest> requests;
    };
    struct Side {
        std::string label; // "arm kv/disk, 3 runs"
        std::vector<Range> ranges;
    };

    struct Point {
        double x = 0.0; // seconds since the range's start, plus the offset on side B
        double y = 0.0; // NaN: a gap in the data, where no line is drawn
    };
    struct Line {
        int side = 0; // 0: A, 1: B
        std::size_t range = 0;
        std::vector<Point> points; // ascending x
    };
    struct Chart {
        Series series;
        bool dots = false;       // kTtft: one dot per request, y in ms
        std::vector<Line> lines; // a line per range that has the series, A's first
    };
    // Bins chosen once from both sides' requests together, so a bar of A and one of B cover
    // the same TTFTs; heights as fractions, so arms of different sizes compare.
    struct Histogram {
        std::vector<double> edgesMs; // ascending, one more than the bins; empty: no requests
        std::array<std::vector<std::size_t>, 2> counts;
        std::array<std::vector<double>, 2> fractions; // counts over that side's total
        std::array<std::size_t, 2> total{};           // requests with a TTFT, per side
    };

    std::vector<Chart> charts;              // one per chosen series, in the order chosen
    std::array<std::vector<Point>, 2> dots; // every request's (send since start, TTFT ms)
    Histogram ttft;
    double x0 = 0.0; // every side's ranges after the offset, in seconds
    double x1 = 0.0;

    // The series a session offers, in the timeline's chart order: every non-reference series
    // of its charts, and the requests' when it stored some.
    static std::vector<Series> catalog(const std::vector<MetricInfo>& metrics,
                                       const std::vector<DeviceRecord>& devices, bool requests);
    // The range's output tokens/s per second of completion (RequestCharts), as kTokens.
    static void addRequestSeries(Range& range);
    // `offsetS` shifts side B along x (a positive offset draws B later).
    static OverlayFrame build(const Side& a, const Side& b, const std::vector<Series>& chosen,
                              double offsetS);
    // A series' buckets as points from the range's start: each bucket's mean at its middle, a
    // NaN where the data stops for more than three of its usual spacings (absent, never zero).
    static std::vector<Point> points(const std::vector<Bucket>& buckets, std::int64_t t0Ns,
                                     double shiftS);
    // Log-spaced edges over the pooled TTFTs (ms): they span orders of magnitude (a warm 50 ms
    // beside a cold 5 s), where equal widths would put every fast request in the first bin.
    // The bin count follows Freedman-Diaconis on the logs, 5 to 60 bins.
    static std::vector<double> binEdges(std::vector<double> pooledMs);
    static Histogram histogram(const std::vector<double>& aMs, const std::vector<double>& bMs);
};

} // namespace tierscope
