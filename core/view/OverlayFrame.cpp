#include "core/view/OverlayFrame.h"

#include "core/view/RequestCharts.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tierscope {

namespace {

constexpr double kNs = 1e9;
constexpr std::int64_t kGapFactor = 3; // as the timeline's charts break a line (ChartPoints)
constexpr int kMinBins = 5;
constexpr int kMaxBins = 60;

std::int64_t middle(const Bucket& b) {
    return b.tNs + b.widthNs / 2;
}

double quantile(const std::vector<double>& sorted, double q) {
    const double at = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(at));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - static_cast<double>(lo));
}

std::vector<double> ttftsMs(const OverlayFrame::Side& side) {
    std::vector<double> out;
    for (const auto& range : side.ranges)
        for (const auto& r : range.requests)
            if (r.ok && r.ttftS)
                out.push_back(*r.ttftS * 1000.0);
    return out;
}

} // namespace

std::vector<OverlayFrame::Series> OverlayFrame::catalog(const std::vector<MetricInfo>& metrics,
                                                        const std::vector<DeviceRecord>& devices,
                                                        bool requests) {
    std::map<std::int64_t, std::string> paths;
    for (const auto& m : metrics)
        paths[m.id] = m.descriptor.path;
    std::vector<Series> out;
    if (requests) {
        out.push_back({kTtft, "Client TTFT per request", "TTFT", ChartCatalog::Unit::Seconds, 0});
        out.push_back({kTokens, "Client output tokens/s", "output tokens/s (completed)",
                       ChartCatalog::Unit::TokensPerSecond, 0});
    }
    for (const auto& chart : ChartCatalog::build(metrics, devices))
        for (const auto& s : chart.series) {
            const auto path = paths.find(s.metricId);
            // A reference (VRAM total) is a limit, not a reading to compare.
            if (!s.reference && path != paths.end())
                out.push_back({path->second, chart.title, s.name, chart.unit, s.metricId});
        }
    return out;
}

void OverlayFrame::addRequestSeries(Range& range) {
    auto charts = RequestCharts::of(range.requests);
    if (const auto it = charts.data.find(RequestCharts::kTokens); it != charts.data.end())
        range.series[kTokens] = std::move(it->second);
}

std::vector<OverlayFrame::Point> OverlayFrame::points(const std::vector<Bucket>& buckets,
                                                      std::int64_t t0Ns, double shiftS) {
    std::vector<std::int64_t> spacing;
    for (std::size_t i = 1; i < buckets.size(); ++i)
        spacing.push_back(middle(buckets[i]) - middle(buckets[i - 1]));
    std::int64_t gap = std::numeric_limits<std::int64_t>::max();
    if (spacing.size() >= 2) {
        std::nth_element(spacing.begin(), spacing.begin() + spacing.size() / 2, spacing.end());
        gap = kGapFactor * std::max<std::int64_t>(1, spacing[spacing.size() / 2]);
    }
    std::vector<Point> out;
    out.reserve(buckets.size());
    const Bucket* last = nullptr;
    for (const auto& b : buckets) {
        if (b.count == 0) // nothing measured there: not a zero
            continue;
        // A bucket of the store's grid can begin before the range does: its middle is drawn
        // no earlier than the range's start, or a run would seem to start before 0 s.
        const double x = static_cast<double>(std::max(middle(b), t0Ns) - t0Ns) / kNs + shiftS;
        if (last && middle(b) - middle(*last) > gap)
            out.push_back({x, std::numeric_limits<double>::quiet_NaN()});
        out.push_back({x, b.mean()});
        last = &b;
    }
    return out;
}

std::vector<double> OverlayFrame::binEdges(std::vector<double> pooledMs) {
    std::erase_if(pooledMs, [](double v) { return !(v > 0.0) || !std::isfinite(v); });
    if (pooledMs.empty())
        return {};
    std::sort(pooledMs.begin(), pooledMs.end());
    const double lo = pooledMs.front(), hi = pooledMs.back();
    if (hi <= lo * 1.000001) // one value: one bin around it
        return {lo * 0.9, hi * 1.1};
    std::vector<double> logs;
    logs.reserve(pooledMs.size());
    for (const double v : pooledMs)
        logs.push_back(std::log10(v));
    const double iqr = quantile(logs, 0.75) - quantile(logs, 0.25);
    const double n = static_cast<double>(logs.size());
    const double width = 2.0 * iqr / std::cbrt(n);
    const double span = logs.back() - logs.front();
    int bins = width > 0.0 ? static_cast<int>(std::ceil(span / width))
                           : static_cast<int>(std::ceil(std::sqrt(n)));
    bins = std::clamp(bins, kMinBins, kMaxBins);
    std::vector<double> edges;
    for (int i = 0; i <= bins; ++i)
        edges.push_back(std::pow(10.0, logs.front() + span * i / bins));
    edges.front() = lo; // exact ends: the smallest and the largest request fall inside
    edges.back() = hi;
    return edges;
}

OverlayFrame::Histogram OverlayFrame::histogram(const std::vector<double>& aMs,
                                                const std::vector<double>& bMs) {
    Histogram h;
    std::vector<double> pooled = aMs;
    pooled.insert(pooled.end(), bMs.begin(), bMs.end());
    h.edgesMs = binEdges(std::move(pooled));
    const std::size_t bins = h.edgesMs.empty() ? 0 : h.edgesMs.size() - 1;
    const std::vector<double>* sides[] = {&aMs, &bMs};
    for (int s = 0; s < 2; ++s) {
        h.counts[s].assign(bins, 0);
        h.fractions[s].assign(bins, 0.0);
        for (const double v : *sides[s]) {
            if (bins == 0 || !(v > 0.0) || !std::isfinite(v))
                continue;
            // Bins are [edge, next edge); the last holds its upper edge, the largest TTFT.
            const auto at = std::upper_bound(h.edgesMs.begin(), h.edgesMs.end(), v);
            const auto bin = std::clamp<std::ptrdiff_t>(at - h.edgesMs.begin() - 1, 0,
                                                        static_cast<std::ptrdiff_t>(bins) - 1);
            ++h.counts[s][static_cast<std::size_t>(bin)];
            ++h.total[s];
        }
        for (std::size_t i = 0; i < bins && h.total[s] > 0; ++i)
            h.fractions[s][i] =
                static_cast<double>(h.counts[s][i]) / static_cast<double>(h.total[s]);
    }
    return h;
}

OverlayFrame OverlayFrame::build(const Side& a, const Side& b, const std::vector<Series>& chosen,
                                 double offsetS) {
    OverlayFrame frame;
    const Side* sides[] = {&a, &b};
    bool any = false;
    for (int s = 0; s < 2; ++s) {
        const double shift = s == 1 ? offsetS : 0.0;
        for (const auto& range : sides[s]->ranges) {
            const double end = static_cast<double>(range.t1Ns - range.t0Ns) / kNs + shift;
            frame.x0 = any ? std::min(frame.x0, shift) : shift;
            frame.x1 = any ? std::max(frame.x1, end) : end;
            any = true;
            for (const auto& r : range.requests)
                if (r.ok && r.ttftS)
                    frame.dots[s].push_back(
                        {static_cast<double>(r.sendNs - range.t0Ns) / kNs + shift, *r.ttftS * 1e3});
        }
        std::sort(frame.dots[s].begin(), frame.dots[s].end(),
                  [](const Point& p, const Point& q) { return p.x < q.x; });
    }
    for (const auto& series : chosen) {
        Chart chart{series, series.key == kTtft, {}};
        for (int s = 0; s < 2; ++s) {
            const double shift = s == 1 ? offsetS : 0.0;
            const auto& ranges = sides[s]->ranges;
            for (std::size_t i = 0; i < ranges.size(); ++i) {
                Line line{s, i, {}};
                if (chart.dots) {
                    for (const auto& r : ranges[i].requests)
                        if (r.ok && r.ttftS)
                            line.points.push_back(
                                {static_cast<double>(r.sendNs - ranges[i].t0Ns) / kNs + shift,
                                 *r.ttftS * 1e3});
                    std::sort(line.points.begin(), line.points.end(),
                              [](const Point& p, const Point& q) { return p.x < q.x; });
                } else if (const auto it = ranges[i].series.find(series.key);
                           it != ranges[i].series.end()) {
                    line.points = points(it->second, ranges[i].t0Ns, shift);
                }
                if (!line.points.empty())
                    chart.lines.push_back(std::move(line));
            }
        }
        frame.charts.push_back(std::move(chart));
    }
    frame.ttft = histogram(ttftsMs(a), ttftsMs(b));
    return frame;
}

} // namespace tierscope
