#pragma once

#include "core/analysis/SessionAnalysis.h"
#include "core/model/Bucket.h"
#include "core/model/DeviceRecord.h"
#include "core/model/MetricInfo.h"
#include "core/view/ChartCatalog.h"
#include "core/view/ChartLayout.h"
#include "core/view/EngineAbsence.h"
#include "core/view/StatTiles.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// One picture of the timeline: the series of its charts over [t0Ns, t1Ns], the bottleneck band
// and the stat tiles. The live view (reading the live buffer) and an opened session (reading
// the store) both make it with TimelineFrame::build, so a session reopened is drawn from the
// same pieces, by the same rules, as it was drawn live.
struct TimelineFrame {
    using Reader = SessionAnalysis::Reader;

    // Where the charts come from: the catalog of the metrics and devices, the engines' absence
    // explained, a load session's request charts first, then the user's layout.
    struct ChartSource {
        std::vector<MetricInfo> metrics;
        std::vector<DeviceRecord> devices;
        std::vector<std::string> engineUrls; // scraped endpoints, for the absent engine charts
        bool live = false;
        EngineAbsence::Scrape scrape = EngineAbsence::Scrape::Unknown;
        std::vector<ChartCatalog::Chart> requestCharts;
    };
    static std::vector<ChartCatalog::Chart> charts(const ChartSource& source,
                                                   const ChartLayout& layout);

    struct Request {
        std::int64_t t0Ns = 0;
        std::int64_t t1Ns = 0;
        // What each series' read asks for, as the reader counts: the live buffer makes this
        // many slots, the store returns this many points (a min and a max per slot), so the
        // live view passes the plot's columns and an opened session twice them.
        int points = 0;
        bool band = false; // classify the bottleneck windows (and make the tiles, if asked)
        std::int64_t bandStartNs = 0;
        std::int64_t bandWindowNs = 0;
        SessionAnalysis::Ceilings ceilings;
        int tilePoints = 0; // sparkline bins; 0: no tiles

        // The live view: windows of a 120th of the view, at least 2 s, on fixed boundaries so
        // the bands do not shift as the view scrolls, and the tiles.
        static Request live(std::int64_t t0Ns, std::int64_t t1Ns, int points, bool band);
        // A recorded session: about two hundred windows across it, none shorter than a second.
        static Request recorded(std::int64_t t0Ns, std::int64_t t1Ns, int points);
    };

    std::map<std::int64_t, std::vector<Bucket>> data;   // by series id, every series of the charts
    std::optional<SessionAnalysis::Result> bottlenecks; // when the request asked for the band
    std::vector<StatTiles::Tile> tiles;                 // when it asked for tiles

    // `metrics` are read only for the band and the tiles: a frame without them may pass none.
    static TimelineFrame build(const std::vector<ChartCatalog::Chart>& charts,
                               const std::vector<MetricInfo>& metrics, const Reader& read,
                               const Request& request);
};

} // namespace tierscope
