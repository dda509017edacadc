#pragma once

#include "core/model/MetricInfo.h"
#include "core/view/ChartCatalog.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// What the timeline shows, as the user chose it: the catalog's charts less the hidden ones,
// then charts of metrics picked by path (IOPS, await, queue depth, network: recorded, but in
// no chart of the catalog). Saved by name; a layout made on one machine applies to any session,
// since it names metric paths, not a session's ids.
struct ChartLayout {
    struct Custom {
        std::string title;
        std::vector<std::string> paths; // metric paths, one series each
        bool operator==(const Custom&) const = default;
    };
    std::set<std::string> hidden; // catalog chart ids
    std::vector<Custom> custom;
    std::map<std::string, std::set<std::string>> hiddenSeries; // chart id -> legend names off

    bool operator==(const ChartLayout&) const = default;

    // `charts` less the hidden ones, then each custom chart ("custom-1", ...) with the series of
    // `metrics` it names, in its order. A custom chart of which none was recorded stays, absent,
    // saying which metrics it wants.
    std::vector<ChartCatalog::Chart> apply(std::vector<ChartCatalog::Chart> charts,
                                           const std::vector<MetricInfo>& metrics) const;
    // The custom charts for `paths` (picked together): one chart per unit, as one value axis
    // cannot carry seconds and bytes. Several get the unit after the title.
    static std::vector<Custom> chartsFor(const std::string& title,
                                         const std::vector<MetricInfo>& picked);
    // The axis for a metric: by its unit, and tokens/s by its name.
    static ChartCatalog::Unit unitOf(const MetricDescriptor& metric);
    // "custom-1" for custom[0]; the index back from such an id, absent for any other id.
    static std::string customId(std::size_t index);
    static std::optional<std::size_t> customIndex(const std::string& chartId);

    std::string toJson() const;
    // Absent for text that is no layout (a hand-edited or damaged setting).
    static std::optional<ChartLayout> fromJson(const std::string& text);
};

} // namespace tierscope
