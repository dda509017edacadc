#include "core/analysis/KvTier.h"

#include <nlohmann/json.hpp>

namespace tierscope {

std::optional<KvTier> KvTier::ofSummary(const std::string& summaryJson) {
    const auto summary = nlohmann::json::parse(summaryJson, nullptr, false);
    if (!summary.is_object() || !summary.contains("kv_tier") || !summary["kv_tier"].is_object())
        return std::nullopt;
    const auto& j = summary["kv_tier"];
    KvTier out;
    if (j.contains("device") && j["device"].is_string())
        out.device = j["device"].get<std::string>();
    if (j.contains("why") && j["why"].is_string())
        out.why = j["why"].get<std::string>();
    for (auto [key, into] : {std::pair{"members", &out.members}, std::pair{"paths", &out.paths}})
        if (j.contains(key) && j[key].is_array())
            for (const auto& name : j[key])
                if (name.is_string())
                    into->push_back(name.get<std::string>());
    return out;
}

std::set<std::string> KvTier::all() const {
    std::set<std::string> out(members.begin(), members.end());
    out.insert(paths.begin(), paths.end());
    if (!device.empty())
        out.insert(device);
    return out;
}

} // namespace tierscope
