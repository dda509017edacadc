#include "core/compare/ComparisonBuilder.h"

#include "core/compare/DistributionCheck.h"
#include "core/compare/DriftCheck.h"
#include "core/compare/EngineRoleCheck.h"
#include "core/compare/GatePresets.h"
#include "core/compare/GpuRunCheck.h"
#include "core/compare/NoiseFloor.h"
#include "core/compare/PathPolicyCheck.h"
#include "core/compare/RunKpis.h"
#include "core/compare/SweepCapacity.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/Joined.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace tierscope {

namespace {

using UsageError = ComparisonBuilder::UsageError;

const char* kForms =
    "run:N (or N), run:1,2,3, run:4-6, session:N or arm:EXPERIMENT/ARM[@SESSION|@all]";

std::int64_t number(const std::string& text, const std::string& spec) {
    try {
        std::size_t used = 0;
        const long long n = std::stoll(text, &used);
        if (used == text.size() && n > 0 && !text.empty() && std::isdigit(text[0]))
            return n;
    } catch (...) {
    }
    throw UsageError("\"" + spec + "\" is not " + kForms);
}

// "1,2,3", "4-6", "1,4-6": the ids in the order given, each once.
std::vector<std::int64_t> runList(const std::string& text, const std::string& spec) {
    std::vector<std::int64_t> out;
    std::set<std::int64_t> seen;
    std::size_t from = 0;
    while (from <= text.size()) {
        const auto comma = std::min(text.find(',', from), text.size());
        const std::string item = text.substr(from, comma - from);
        const auto dash = item.find('-');
        const std::int64_t first = number(item.substr(0, dash), spec);
        const std::int64_t last =
            dash == std::string::npos ? first : number(item.substr(dash + 1), spec);
        if (last < first || last - first >= 100000)
            throw UsageError("\"" + item + "\" in \"" + spec + "\" is not a range FIRST-LAST");
        for (std::int64_t id = first; id <= last; ++id)
            if (seen.insert(id).second)
                out.push_back(id);
        from = comma + 1;
    }
    return out;
}

// "4 measured runs (1 warm-up, 5 populate left out)": only measurements are compared, so a
// side is not counted by runs it never uses.
std::string runCount(const std::vector<RunInfo>& runs) {
    std::size_t measured = 0;
    std::map<std::string, std::size_t> other;
    for (const auto& r : runs) {
        if (RunKpis::isMeasurement(r))
            ++measured;
        else
            ++other[r.status == "warmup" ? "warm-up" : r.status.empty() ? "unfinished" : r.status];
    }
    std::string out = std::to_string(measured) + " measured run" + (measured == 1 ? "" : "s");
    if (other.empty())
        return out;
    std::vector<std::string> parts;
    for (const auto& [status, n] : other)
        parts.push_back(std::to_string(n) + " " + status);
    return out + " (" + joined(parts, ", ") + " left out)";
}

std::string sessionLabel(Store& store, std::int64_t id) {
    const auto s = store.session(id);
    if (!s)
        return "session " + std::to_string(id);
    return "session " + std::to_string(id) + (s->label.empty() ? "" : " \"" + s->label + "\"") +
           (s->storageProfile.empty() ? "" : " [" + s->storageProfile + "]");
}

std::set<std::int64_t> sessionsOf(const ComparisonSide& a, const ComparisonSide& b) {
    std::set<std::int64_t> ids;
    for (const auto* side : {&a, &b})
        for (const auto& r : side->runs)
            ids.insert(r.sessionId);
    return ids;
}

void provenance(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                ComparisonResult& in) {
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto id : sessionsOf(a, b)) {
        const auto s = store.session(id);
        if (!s)
            continue;
        in.hosts.push_back(sessionLabel(store, id) + " on " +
                           (s->host.empty() ? "an unnamed host" : s->host) + ", started " +
                           UnitFormat::utcTime(s->startNs) + ", recorded by tierscope " +
                           (s->toolVersion.empty() ? "?" : s->toolVersion));
        if (in.plan.empty())
            in.plan = store.eventText(id, "experiment-plan").value_or("");
        for (auto& d : store.devices(id))
            if (seen.insert({d.kind, d.name}).second)
                in.devices.push_back(std::move(d));
    }
}

} // namespace

void ComparisonBuilder::load(Store& store, ComparisonSide& side) {
    for (const auto& r : side.runs) {
        side.requests.push_back(store.requests(r.id));
        // An imported result came with no recording: an empty timeline, not an idle one.
        side.timelines.push_back(r.status == "imported" ? RunTimeline{}
                                                        : RunTimeline::read(store, r));
    }
}

ComparisonSide ComparisonBuilder::resolve(Store& store, const std::string& spec) {
    ComparisonSide side;
    const auto colon = spec.find(':');
    const std::string kind = colon == std::string::npos ? "run" : spec.substr(0, colon);
    const std::string rest = colon == std::string::npos ? spec : spec.substr(colon + 1);
    if (kind == "run") {
        const auto ids = runList(rest, spec);
        for (const auto id : ids) {
            const auto run = store.run(id);
            if (!run)
                throw StoreError(StoreError::Code::NotFound, "no run " + std::to_string(id));
            side.runs.push_back(*run);
        }
        const auto& first = side.runs.front();
        side.label = ids.size() == 1
                         ? "run " + rest + " (" + first.workload + ") in " +
                               sessionLabel(store, first.sessionId)
                         : "runs " + rest + " (" + first.workload + "), " + runCount(side.runs);
    } else if (kind == "session") {
        const std::int64_t id = number(rest, spec);
        if (!store.session(id))
            throw StoreError(StoreError::Code::NotFound, "no session " + rest);
        side.runs = store.runsOfSession(id);
        side.label = sessionLabel(store, id) + ", " + runCount(side.runs);
    } else if (kind == "arm") {
        std::string name = rest;
        std::optional<std::int64_t> session;
        bool pooled = false;
        if (const auto at = name.rfind('@'); at != std::string::npos) {
            const std::string which = name.substr(at + 1);
            if (which == "all")
                pooled = true;
            else if (!which.empty() && which.find_first_not_of("0123456789") == std::string::npos)
                session = number(which, spec);
            if (pooled || session)
                name = name.substr(0, at);
        }
        const auto slash = name.rfind('/'); // experiment names hold slashes, arm labels do not
        if (slash == std::string::npos)
            throw UsageError("an arm is arm:EXPERIMENT/ARM[@SESSION|@all]");
        auto out = arm(store, name.substr(0, slash), name.substr(slash + 1), {}, session);
        std::set<std::int64_t> sessions;
        for (const auto& r : out.runs)
            sessions.insert(r.sessionId);
        if (sessions.size() > 1 && !pooled) {
            std::string list;
            for (const auto id : sessions)
                list += (list.empty() ? "" : ", ") + std::to_string(id);
            throw UsageError("arm:" + name + " has runs in " + std::to_string(sessions.size()) +
                             " sessions (" + list +
                             "), each an execution of the plan: name one, "
                             "arm:" +
                             name + "@" + std::to_string(*sessions.rbegin()) +
                             ", or pool them on purpose, arm:" + name + "@all");
        }
        out.label = "arm " + rest + ", " + runCount(out.runs);
        if (out.runs.empty())
            throw StoreError(StoreError::Code::NotFound, "no runs of " + out.label);
        return out;
    } else {
        throw UsageError("\"" + spec + "\" is not " + std::string(kForms));
    }
    if (side.runs.empty())
        throw StoreError(StoreError::Code::NotFound, side.label + ": nothing to compare");
    load(store, side);
    return side;
}

ComparisonSide ComparisonBuilder::arm(Store& store, const std::string& experiment,
                                      const std::string& armLabel, const std::string& label,
                                      std::optional<std::int64_t> session) {
    ComparisonSide side;
    side.label = label;
    side.runs = store.runsOfArm(experiment, armLabel);
    if (session)
        std::erase_if(side.runs, [&](const RunInfo& r) { return r.sessionId != *session; });
    load(store, side);
    return side;
}

std::vector<Gate> ComparisonBuilder::gates(const std::vector<std::string>& texts,
                                           const std::vector<std::string>& presets) {
    std::vector<std::string> all = texts;
    for (const auto& name : presets) {
        const auto it = GatePresets::builtin().find(name);
        if (it == GatePresets::builtin().end()) {
            std::string names;
            for (const auto& [n, g] : GatePresets::builtin())
                names += (names.empty() ? "" : ", ") + n;
            throw UsageError("no gate preset \"" + name + "\"; presets: " + names);
        }
        all.insert(all.end(), it->second.begin(), it->second.end());
    }
    std::vector<Gate> out;
    for (const auto& text : all) {
        std::string error;
        auto gate = Gate::parse(text, error);
        if (!gate)
            throw UsageError(error);
        if (const auto now = RunKpis::renamedTo(gate->kpi))
            throw UsageError("KPI \"" + gate->kpi + "\" in gate \"" + text + "\" is now \"" + *now +
                             "\", which counts every storage wait the engine exposes");
        if (!RunKpis::find(gate->kpi)) {
            std::string names;
            for (const auto& d : RunKpis::definitions())
                names += (names.empty() ? "" : ", ") + d.name;
            throw UsageError("no KPI \"" + gate->kpi + "\" in gate \"" + text +
                             "\"; KPIs: " + names);
        }
        out.push_back(*gate);
    }
    return out;
}

void ComparisonBuilder::checkVariants(const ComparisonSide& a, const ComparisonSide& b) {
    const auto va = Comparison::variants(a), vb = Comparison::variants(b);
    for (const auto& [side, variants] : {std::pair{&a, &va}, std::pair{&b, &vb}})
        if (variants->size() > 1)
            throw UsageError((side == &a ? "A" : "B") + std::string(" (") + side->label +
                             ") mixes workload variants: " + joined(*variants) +
                             "; compare one workload variant at a time");
    if (!va.empty() && !vb.empty() && va != vb)
        throw UsageError("A is " + joined(va) + " but B is " + joined(vb) +
                         "; compare one workload variant at a time");
}

// The floor before the gates are judged, so every view reads it from the KPI rows.
void ComparisonBuilder::addNoiseFloor(Store& store, const ComparisonSide& a,
                                      const ComparisonSide& b, const Options& o,
                                      ComparisonResult& in) {
    std::vector<RunInfo> measured;
    for (const auto* side : {&a, &b})
        for (const auto& r : side->runs)
            if (RunKpis::isMeasurement(r))
                measured.push_back(r);
    const auto session =
        o.noiseFloorSession ? o.noiseFloorSession : NoiseFloor::sessionOfRuns(measured);
    if (!session || measured.empty() || in.kpis.empty())
        return;
    const auto floor = NoiseFloor::load(store, *session, measured.front().experiment);
    if (!floor) {
        in.warnings.push_back("noise floor: session " + std::to_string(*session) +
                              " holds no A/A calibration of " + measured.front().experiment +
                              " (run the plan with --calibrate)");
        return;
    }
    floor->apply(in.kpis);
    in.noiseFloor =
        "A/A calibration " + floor->experiment + " in session " + std::to_string(floor->session);
}

ComparisonResult ComparisonBuilder::build(Store& store, const ComparisonSide& a,
                                          const ComparisonSide& b, const Options& o) {
    ComparisonResult in;
    in.labelA = a.label;
    in.labelB = b.label;
    // Load sweeps compare by capacity; a run's KPIs belong to its point, never pooled.
    const auto sweep = SweepCapacity::addTo(a, b, in);
    if (!sweep) {
        checkVariants(a, b);
        in.kpis = Comparison::compare(a, b);
    }
    for (const auto* side : {&a, &b}) {
        const std::string tag = side == &a ? "A: " : "B: ";
        for (const auto& line : Comparison::excluded(*side))
            in.excluded.push_back(tag + line);
        for (const auto& check : Comparison::validity(*side))
            (check.failed ? in.invalid : in.warnings).push_back(tag + check.text);
        for (const auto& line : Comparison::checks(*side))
            in.checks.push_back(tag + line);
        for (auto& check : Comparison::runChecks(*side))
            in.runChecks.emplace_back(side == &a ? 'A' : 'B', std::move(check));
        for (std::size_t i = 0; i < side->runs.size() && i < side->timelines.size(); ++i)
            if (RunKpis::isMeasurement(side->runs[i]) && !side->timelines[i].bytesRoute.empty())
                in.routes.push_back(
                    {side == &a ? 'A' : 'B', side->runs[i].id, side->timelines[i].bytesRoute});
    }
    // A role one side's engine lost: a warning of that side, and a row of its checks (run 0:
    // the side's runs together).
    for (auto& lost : EngineRoleCheck::of(a, b)) {
        in.warnings.push_back(std::string(1, lost.side) + ": engine schema: " + lost.text);
        in.runChecks.emplace_back(lost.side,
                                  Comparison::RunCheck{0, "engine_schema", "warn", lost.text});
    }
    GpuRunCheck::addTo(store, a, b, in);
    PathPolicyCheck::addTo(store, a, b, in);
    addNoiseFloor(store, a, b, o, in);
    for (const auto& gate : o.gates) {
        const auto k = std::find_if(in.kpis.begin(), in.kpis.end(),
                                    [&](const KpiComparison& c) { return c.name == gate.kpi; });
        if (!in.invalid.empty())
            in.gates.emplace_back(gate, Gate::Result{Gate::Verdict::Inconclusive,
                                                     "not judged: the comparison is INVALID"});
        else if (k != in.kpis.end())
            in.gates.emplace_back(gate, gate.judge(*k));
        else if (const auto* d = RunKpis::find(gate.kpi); sweep && d && d->armLevel)
            in.gates.emplace_back(
                gate, Gate::Result{Gate::Verdict::Inconclusive,
                                   "not judged: " +
                                       (sweep->empty() ? gate.kpi + " is not this sweep's capacity"
                                                       : *sweep)});
        else if (!o.dropUnmeasuredGates)
            in.gates.emplace_back(gate, Gate::Result{Gate::Verdict::Inconclusive,
                                                     gate.kpi + " was not measured on both sides"});
    }
    // On the gated KPIs, so after the gates.
    if (!sweep) {
        DriftCheck::addTo(in);
        DistributionCheck::addTo(a, b, in);
    }
    const auto sharesA = Comparison::shares(a), sharesB = Comparison::shares(b);
    for (const auto c : BottleneckClassifier::all()) {
        ComparisonResult::Share s{BottleneckClassifier::name(c), {}, {}};
        if (!sharesA.empty())
            s.a = sharesA.count(c) ? sharesA.at(c) : 0.0;
        if (!sharesB.empty())
            s.b = sharesB.count(c) ? sharesB.at(c) : 0.0;
        if (s.a.value_or(0) > 0 || s.b.value_or(0) > 0)
            in.shares.push_back(s);
    }
    provenance(store, a, b, in);
    return in;
}

} // namespace tierscope
