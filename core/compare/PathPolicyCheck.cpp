#include "core/compare/PathPolicyCheck.h"

#include "core/compare/ComparisonResult.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"

#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::string listed(const PathPolicyCheck::Policies& p, const char* side) {
    std::set<std::string> policies;
    for (const auto& [device, policy] : p)
        policies.insert(policy);
    std::string out;
    for (const auto& policy : policies) {
        std::string devices;
        for (const auto& [device, pol] : p)
            if (pol == policy)
                devices += (devices.empty() ? "" : ", ") + device;
        out += (out.empty() ? "" : "; ") + policy + " on " + side + "'s " + devices;
    }
    return out;
}

} // namespace

PathPolicyCheck::Policies PathPolicyCheck::read(Store& store, const ComparisonSide& side) {
    // The tier devices the side's measured runs name, per session.
    std::map<std::int64_t, std::set<std::string>> tierDevices;
    for (const auto& run : side.runs) {
        if (!RunKpis::isMeasurement(run))
            continue;
        const auto summary = nlohmann::json::parse(run.summaryJson, nullptr, false);
        if (!summary.is_object() || !summary.contains("kv_tier") || !summary["kv_tier"].is_object())
            continue;
        const auto& tier = summary["kv_tier"];
        auto& devices = tierDevices[run.sessionId];
        if (tier.contains("device") && tier["device"].is_string())
            devices.insert(tier["device"].get<std::string>());
        if (tier.contains("members") && tier["members"].is_array())
            for (const auto& m : tier["members"])
                if (m.is_string())
                    devices.insert(m.get<std::string>());
    }
    Policies out;
    for (const auto& [session, devices] : tierDevices)
        for (const auto& d : store.devices(session)) {
            if (d.kind != "block" || !devices.count(d.name))
                continue;
            const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
            if (attrs.is_object() && attrs.contains("iopolicy") && attrs["iopolicy"].is_string())
                out[d.name] = attrs["iopolicy"].get<std::string>();
        }
    return out;
}

std::string PathPolicyCheck::differs(const Policies& a, const Policies& b) {
    if (a.empty() || b.empty())
        return {};
    std::set<std::string> pa, pb;
    for (const auto& [device, policy] : a)
        pa.insert(policy);
    for (const auto& [device, policy] : b)
        pb.insert(policy);
    if (pa == pb)
        return {};
    return listed(a, "A") + ", " + listed(b, "B") +
           ": the paths under the KV tier share the I/O differently";
}

void PathPolicyCheck::addTo(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                            ComparisonResult& out) {
    const std::string text = differs(read(store, a), read(store, b));
    if (text.empty())
        return;
    // Neither side is the odd one out: both carry it.
    for (const char side : {'A', 'B'}) {
        out.warnings.push_back(std::string(1, side) + ": nvme_iopolicy: " + text);
        out.runChecks.emplace_back(side, Comparison::RunCheck{0, "nvme_iopolicy", "warn", text});
    }
}

} // namespace tierscope
