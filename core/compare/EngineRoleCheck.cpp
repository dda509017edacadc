#include "core/compare/EngineRoleCheck.h"

#include "core/compare/RunKpis.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/util/Joined.h"

#include <map>
#include <set>
#include <tuple>

namespace tierscope {

namespace {

struct Roles {
    std::set<std::string> served;
    std::map<std::string, std::set<std::string>> missingAt; // role -> endpoints without it
};

Roles rolesOf(const ComparisonSide& side) {
    Roles out;
    for (std::size_t i = 0; i < side.runs.size() && i < side.timelines.size(); ++i) {
        if (!RunKpis::isMeasurement(side.runs[i]))
            continue;
        for (const auto& [endpoint, roles] : side.timelines[i].engineRoles)
            for (const auto& [role, served] : roles)
                if (served)
                    out.served.insert(role);
                else
                    out.missingAt[role].insert(endpoint);
    }
    for (const auto& role : out.served)
        out.missingAt.erase(role); // served in some run: not lost
    return out;
}

} // namespace

std::vector<EngineRoleCheck::Lost> EngineRoleCheck::of(const ComparisonSide& a,
                                                       const ComparisonSide& b) {
    const auto& catalog = EngineMetricCatalog::active();
    const Roles ra = rolesOf(a), rb = rolesOf(b);
    std::vector<Lost> out;
    for (const auto& [has, lacks, name, other] :
         {std::tuple{&ra, &rb, "B", "A"}, std::tuple{&rb, &ra, "A", "B"}})
        for (const auto& [role, endpoints] : lacks->missingAt) {
            if (!has->served.count(role))
                continue;
            const auto* r = catalog.role(role);
            out.push_back({name[0], (r ? r->title : role) + ": served by " + other +
                                        "'s engine, not by " + name + "'s (no family of it at " +
                                        joined(endpoints) + ")"});
        }
    return out;
}

} // namespace tierscope
