#include "core/compare/NoiseFloor.h"

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/RunKpis.h"
#include "core/stats/GatePower.h"
#include "core/stats/StudentT.h"
#include "core/store/Store.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace tierscope {

NoiseFloor NoiseFloor::fromAa(const std::vector<KpiComparison>& aa) {
    NoiseFloor out;
    for (const auto& k : aa) {
        const auto spread = k.logSpread();
        if (!spread || k.countA < 2 || k.countB < 2)
            continue;
        Kpi f;
        f.sigma = *spread;
        f.dof = static_cast<double>(k.countA + k.countB) - 2;
        f.cv = GatePower::cvOfSigma(*spread);
        f.aaChange = k.relative();
        if (const auto r = k.relativeInterval()) {
            f.aaLo = r->lo;
            f.aaHi = r->hi;
        }
        f.runs = std::min(k.countA, k.countB);
        out.kpis[k.name] = f;
    }
    return out;
}

namespace {

std::string variantOf(const std::string& experiment) {
    const auto slash = experiment.find('/');
    return slash == std::string::npos ? experiment : experiment.substr(slash + 1);
}

bool isCalibration(const std::string& experiment) {
    const auto slash = experiment.find('/');
    const std::string plan = experiment.substr(0, slash);
    const std::string suffix = NoiseFloor::kSuffix;
    return slash != std::string::npos && plan.size() > suffix.size() &&
           plan.compare(plan.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

std::optional<NoiseFloor> NoiseFloor::load(Store& store, std::int64_t session,
                                           const std::string& experiment) {
    // experiment -> its arms in the order they first ran
    std::map<std::string, std::vector<std::string>> arms;
    for (const auto& r : store.runsOfSession(session)) {
        if (!isCalibration(r.experiment) || !RunKpis::isMeasurement(r))
            continue;
        auto& list = arms[r.experiment];
        if (std::find(list.begin(), list.end(), r.arm) == list.end())
            list.push_back(r.arm);
    }
    std::erase_if(arms, [](const auto& e) { return e.second.size() != 2; });
    if (arms.empty())
        return std::nullopt;
    auto chosen = arms.begin();
    for (auto it = arms.begin(); it != arms.end(); ++it)
        if (variantOf(it->first) == variantOf(experiment))
            chosen = it;
    if (arms.size() > 1 && variantOf(chosen->first) != variantOf(experiment))
        return std::nullopt; // several calibrations, none of this variant
    std::vector<std::string> list = chosen->second;
    std::sort(list.begin(), list.end()); // "x" before "x-again"
    const auto a = ComparisonBuilder::arm(store, chosen->first, list[0], list[0], session);
    const auto b = ComparisonBuilder::arm(store, chosen->first, list[1], list[1], session);
    auto floor = fromAa(Comparison::compare(a, b));
    floor.session = session;
    floor.experiment = chosen->first;
    return floor;
}

std::optional<double> NoiseFloor::halfWidth(const std::string& kpi, std::size_t na, std::size_t nb,
                                            double confidence) const {
    const auto it = kpis.find(kpi);
    if (it == kpis.end() || na == 0 || nb == 0 || it->second.dof < 1)
        return std::nullopt;
    const double t = StudentT::quantile(1 - (1 - confidence) / 2, it->second.dof);
    return std::exp(t * it->second.sigma *
                    std::sqrt(1.0 / static_cast<double>(na) + 1.0 / static_cast<double>(nb))) -
           1;
}

void NoiseFloor::apply(std::vector<KpiComparison>& list) const {
    for (auto& k : list) {
        const auto it = kpis.find(k.name);
        if (it == kpis.end() || k.scale != KpiComparison::Scale::Ratio)
            continue;
        k.floor = halfWidth(k.name, k.countA, k.countB, k.confidence);
        k.floorCv = it->second.cv;
    }
}

std::optional<std::int64_t> NoiseFloor::sessionOfRuns(const std::vector<RunInfo>& runs) {
    for (const auto& r : runs) {
        const auto params = nlohmann::json::parse(r.paramsJson, nullptr, false);
        if (!params.is_object())
            continue;
        const auto it = params.find(kParam);
        if (it != params.end() && it->is_number_integer() && it->get<long long>() > 0)
            return it->get<std::int64_t>();
    }
    return std::nullopt;
}

} // namespace tierscope
