#include "core/analysis/EngineRoles.h"

#include "core/store/Store.h"

#include <algorithm>

namespace tierscope {

EngineRoles::ByEndpoint EngineRoles::read(Store& store, const std::vector<MetricInfo>& metrics,
                                          std::int64_t t0Ns, std::int64_t t1Ns) {
    constexpr std::string_view head = "engine/", marker = "/served{role=";
    ByEndpoint out;
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        const auto at = p.find(marker);
        if (!p.starts_with(head) || at == std::string::npos || !p.ends_with("}"))
            continue;
        const auto samples = store.readRaw(m.id, t0Ns - kRepeatNs, t1Ns);
        if (samples.empty())
            continue;
        const std::string endpoint = p.substr(head.size(), at - head.size());
        const std::string role = p.substr(at + marker.size(), p.size() - at - marker.size() - 1);
        out[endpoint][role] = std::any_of(samples.begin(), samples.end(),
                                          [](const Sample& s) { return s.value > 0.5; });
    }
    return out;
}

} // namespace tierscope
