#include "core/view/ChartLayout.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string_view>

namespace tierscope {

namespace {

const char* unitName(ChartCatalog::Unit unit) {
    switch (unit) {
    case ChartCatalog::Unit::Percent:
        return "%";
    case ChartCatalog::Unit::Bytes:
        return "bytes";
    case ChartCatalog::Unit::BytesPerSecond:
        return "bytes/s";
    case ChartCatalog::Unit::Seconds:
        return "s";
    case ChartCatalog::Unit::Ratio:
        return "ratio";
    case ChartCatalog::Unit::TokensPerSecond:
        return "tokens/s";
    case ChartCatalog::Unit::Count:
        break;
    }
    return "count";
}

} // namespace

ChartCatalog::Unit ChartLayout::unitOf(const MetricDescriptor& metric) {
    using Unit = ChartCatalog::Unit;
    if (metric.path.ends_with("tokens_per_s"))
        return Unit::TokensPerSecond;
    if (metric.unit == "percent")
        return Unit::Percent;
    if (metric.unit == "bytes")
        return Unit::Bytes;
    if (metric.unit == "bytes/s")
        return Unit::BytesPerSecond;
    if (metric.unit == "s")
        return Unit::Seconds;
    if (metric.unit == "ratio")
        return Unit::Ratio;
    return Unit::Count; // "1", "1/s" (IOPS), unknown units: a plain number
}

std::string ChartLayout::customId(std::size_t index) {
    return "custom-" + std::to_string(index + 1);
}

std::optional<std::size_t> ChartLayout::customIndex(const std::string& chartId) {
    constexpr std::string_view prefix = "custom-";
    if (!chartId.starts_with(prefix))
        return std::nullopt;
    const char* last = chartId.data() + chartId.size();
    std::size_t n = 0;
    const auto [end, error] = std::from_chars(chartId.data() + prefix.size(), last, n);
    if (error != std::errc{} || end != last || n == 0)
        return std::nullopt;
    return n - 1;
}

std::vector<ChartCatalog::Chart> ChartLayout::apply(std::vector<ChartCatalog::Chart> charts,
                                                    const std::vector<MetricInfo>& metrics) const {
    std::erase_if(charts, [&](const ChartCatalog::Chart& c) { return hidden.contains(c.id); });
    for (std::size_t i = 0; i < custom.size(); ++i) {
        const Custom& c = custom[i];
        ChartCatalog::Chart chart;
        chart.id = customId(i);
        chart.title = c.title;
        bool typed = false;
        for (const auto& path : c.paths) {
            const auto m = std::find_if(metrics.begin(), metrics.end(), [&](const MetricInfo& x) {
                return x.descriptor.path == path;
            });
            if (m == metrics.end())
                continue;
            if (!typed)
                chart.unit = unitOf(m->descriptor);
            typed = true;
            ChartCatalog::Series series;
            series.metricId = m->id;
            series.name = path;
            chart.series.push_back(series);
        }
        if (chart.series.empty()) {
            std::string wanted;
            for (const auto& p : c.paths)
                wanted += (wanted.empty() ? "" : ", ") + p;
            chart.absentReason = "None of this chart's metrics was recorded here: " + wanted;
        }
        charts.push_back(chart);
    }
    return charts;
}

std::vector<ChartLayout::Custom> ChartLayout::chartsFor(const std::string& title,
                                                        const std::vector<MetricInfo>& picked) {
    std::vector<std::pair<ChartCatalog::Unit, Custom>> byUnit;
    for (const auto& m : picked) {
        const auto unit = unitOf(m.descriptor);
        auto it = std::find_if(byUnit.begin(), byUnit.end(),
                               [&](const auto& entry) { return entry.first == unit; });
        if (it == byUnit.end())
            it = byUnit.insert(byUnit.end(), {unit, Custom{title, {}}});
        it->second.paths.push_back(m.descriptor.path);
    }
    std::vector<Custom> out;
    for (auto& [unit, chart] : byUnit) {
        if (byUnit.size() > 1)
            chart.title += std::string(" (") + unitName(unit) + ")";
        out.push_back(std::move(chart));
    }
    return out;
}

std::string ChartLayout::toJson() const {
    nlohmann::json j;
    j["hidden"] = hidden;
    j["custom"] = nlohmann::json::array();
    for (const auto& c : custom)
        j["custom"].push_back({{"title", c.title}, {"paths", c.paths}});
    j["hidden_series"] = hiddenSeries;
    return j.dump();
}

std::optional<ChartLayout> ChartLayout::fromJson(const std::string& text) {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        return std::nullopt;
    try {
        ChartLayout layout;
        layout.hidden = j.value("hidden", std::set<std::string>{});
        for (const auto& c : j.value("custom", nlohmann::json::array())) {
            Custom custom{c.at("title").get<std::string>(),
                          c.at("paths").get<std::vector<std::string>>()};
            if (custom.paths.empty())
                return std::nullopt;
            layout.custom.push_back(std::move(custom));
        }
        layout.hiddenSeries =
            j.value("hidden_series", std::map<std::string, std::set<std::string>>{});
        return layout;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

} // namespace tierscope
