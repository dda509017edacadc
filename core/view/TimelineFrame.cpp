#include "core/view/TimelineFrame.h"

#include <algorithm>

namespace tierscope {

namespace {
constexpr std::int64_t kSecond = 1000000000LL;
}

std::vector<ChartCatalog::Chart> TimelineFrame::charts(const ChartSource& source,
                                                       const ChartLayout& layout) {
    auto charts = ChartCatalog::build(source.metrics, source.devices);
    EngineAbsence::explain(charts, source.engineUrls, source.live, source.scrape);
    charts.insert(charts.begin(), source.requestCharts.begin(), source.requestCharts.end());
    return layout.apply(std::move(charts), source.metrics);
}

TimelineFrame::Request TimelineFrame::Request::live(std::int64_t t0Ns, std::int64_t t1Ns,
                                                    int points, bool band) {
    Request r;
    r.t0Ns = t0Ns;
    r.t1Ns = t1Ns;
    r.points = points;
    r.band = band;
    r.bandWindowNs = std::max<std::int64_t>(2 * kSecond, (t1Ns - t0Ns) / 120);
    r.bandStartNs = t0Ns / r.bandWindowNs * r.bandWindowNs;
    r.tilePoints = 60;
    return r;
}

TimelineFrame::Request TimelineFrame::Request::recorded(std::int64_t t0Ns, std::int64_t t1Ns,
                                                        int points) {
    Request r;
    r.t0Ns = t0Ns;
    r.t1Ns = t1Ns;
    r.points = points;
    r.band = true;
    r.bandStartNs = t0Ns;
    r.bandWindowNs = std::max<std::int64_t>(kSecond, (t1Ns - t0Ns) / 200);
    return r;
}

TimelineFrame TimelineFrame::build(const std::vector<ChartCatalog::Chart>& charts,
                                   const std::vector<MetricInfo>& metrics, const Reader& read,
                                   const Request& request) {
    TimelineFrame frame;
    for (const auto& chart : charts)
        for (const auto& s : chart.series)
            if (!frame.data.contains(s.metricId))
                frame.data[s.metricId] =
                    read(s.metricId, request.t0Ns, request.t1Ns, request.points);
    if (!request.band)
        return frame;
    frame.bottlenecks = SessionAnalysis::analyzeSeries(
        metrics, read, request.bandStartNs, request.t1Ns, request.bandWindowNs, request.ceilings);
    if (request.tilePoints > 0)
        frame.tiles = StatTiles::compute(metrics, charts, read, request.t0Ns, request.t1Ns,
                                         request.tilePoints, &*frame.bottlenecks);
    return frame;
}

} // namespace tierscope
