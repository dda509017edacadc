#include "core/analysis/RunEnergy.h"

#include "core/store/Store.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tierscope {

namespace {

// How far before the run its baseline sample may lie: the recorder samples at least every 10 s
// (--interval), so a sample a minute older means recording had stopped, and the energy since
// is not the run's.
constexpr std::int64_t kBaselineLookbackNs = 60'000'000'000LL;

bool energySeries(const std::string& path) {
    constexpr std::string_view tail = "/energy_j";
    return path.starts_with("gpu/") && path.size() > tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
}

bool integrated(const std::string& labels) {
    const auto j = nlohmann::json::parse(labels, nullptr, false);
    if (!j.is_object())
        return false;
    const auto it = j.find("integrated");
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

} // namespace

std::optional<double> RunEnergy::increase(const std::vector<Sample>& samples, std::int64_t startNs,
                                          std::int64_t endNs) {
    std::optional<double> before, total;
    for (const auto& s : samples) {
        if (s.tNs > endNs)
            break;
        if (s.tNs > startNs && before)
            total = total.value_or(0) + (s.value >= *before ? s.value - *before : s.value);
        before = s.value;
    }
    return total;
}

RunEnergy RunEnergy::read(Store& store, const std::vector<MetricInfo>& metrics,
                          std::int64_t startNs, std::int64_t endNs) {
    RunEnergy out;
    for (const auto& m : metrics) {
        if (!energySeries(m.descriptor.path))
            continue;
        const auto joules =
            increase(store.readRaw(m.id, startNs - kBaselineLookbackNs, endNs), startNs, endNs);
        if (!joules)
            continue;
        out.joules = out.joules.value_or(0) + *joules;
        ++out.gpus;
        if (integrated(m.descriptor.labels))
            ++out.integratedGpus;
    }
    return out;
}

} // namespace tierscope
