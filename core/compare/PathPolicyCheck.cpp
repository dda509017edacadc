#include "core/compare/PathPolicyCheck.h"

#include "core/analysis/KvTier.h"
#include "core/compare/ComparisonResult.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"
#include "core/util/Joined.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

// policy -> the devices under it, in name order.
std::map<std::string, std::vector<std::string>> byPolicy(const PathPolicyCheck::Policies& p) {
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [device, policy] : p)
        out[policy].push_back(device);
    return out;
}

// "round-robin on A's nvme1n1, nvme2n1; numa on A's nvme3n1".
std::string listed(const PathPolicyCheck::Policies& p, const char* side) {
    std::vector<std::string> parts;
    for (const auto& [policy, devices] : byPolicy(p))
        parts.push_back(policy + " on " + side + "'s " + joined(devices));
    return joined(parts, "; ");
}

} // namespace

PathPolicyCheck::Policies PathPolicyCheck::read(Store& store, const ComparisonSide& side) {
    // The tier devices the side's measured runs name, per session.
    std::map<std::int64_t, std::set<std::string>> tierDevices;
    for (const auto& run : side.runs) {
        if (!RunKpis::isMeasurement(run))
            continue;
        const auto tier = KvTier::ofSummary(run.summaryJson);
        if (!tier)
            continue;
        // The device and what it is stacked on: the heads whose subsystem has a policy.
        auto& devices = tierDevices[run.sessionId];
        if (!tier->device.empty())
            devices.insert(tier->device);
        devices.insert(tier->members.begin(), tier->members.end());
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
    const auto pa = byPolicy(a), pb = byPolicy(b);
    if (std::equal(pa.begin(), pa.end(), pb.begin(), pb.end(),
                   [](const auto& x, const auto& y) { return x.first == y.first; }))
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
