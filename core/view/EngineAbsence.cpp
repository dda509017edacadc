#include "core/view/EngineAbsence.h"

#include "core/util/Joined.h"

#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

// The catalog's advice for an engine chart; matched by its start so new engine charts follow.
constexpr const char* kNoEngine = "No inference engine is scraped";

} // namespace

void EngineAbsence::explain(std::vector<ChartCatalog::Chart>& charts,
                            const std::vector<std::string>& urls, bool live, Scrape scrape) {
    if (urls.empty())
        return;
    const std::string list = joined(urls);
    std::string reason;
    if (!live)
        reason = list + " was scraped, but it reported none of these metrics";
    else if (scrape == Scrape::Failing)
        reason = "Cannot scrape " + list +
                 ": the last scrapes failed (is the engine up, and is this its /metrics URL?)";
    else if (scrape == Scrape::Answering)
        reason = list + " answers, but reports none of these metrics (a vLLM, SGLang or LMCache "
                        "/metrics endpoint?)";
    else
        reason = "Scraping " + list + ": no engine metrics yet";
    for (auto& c : charts)
        if (c.series.empty() && c.absentReason.starts_with(kNoEngine))
            c.absentReason = reason;
}

std::vector<std::string> EngineAbsence::urlsOf(const std::vector<DeviceRecord>& devices) {
    std::vector<std::string> out;
    for (const auto& d : devices) {
        if (d.kind != "engine-endpoint")
            continue;
        const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
        out.push_back(attrs.is_object() ? attrs.value("url", d.name) : d.name);
    }
    return out;
}

} // namespace tierscope
