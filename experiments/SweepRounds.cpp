#include "experiments/SweepRounds.h"

#include "core/compare/RunKpis.h"
#include "core/compare/SloSearch.h"
#include "core/compare/SweepCapacity.h"
#include "core/store/Store.h"

#include <algorithm>

namespace tierscope {

std::optional<double> SweepRounds::probe(const PlanSweep& sweep, Store& store,
                                         const std::string& experiment, const std::string& arm,
                                         std::int64_t session) {
    ComparisonSide side;
    for (auto& run : store.runsOfArm(experiment, arm))
        if (run.sessionId == session && RunKpis::isMeasurement(run)) {
            side.requests.push_back(store.requests(run.id));
            side.runs.push_back(std::move(run));
        }
    const auto curve = SweepCapacity::curve(side);
    if (!curve)
        return std::nullopt;
    std::vector<std::pair<double, bool>> verdicts;
    for (const auto& p : curve->points)
        if (p.holds)
            verdicts.emplace_back(p.load, *p.holds);
    // One step: the probe is only noted here; the runner measures it with the other arms'.
    std::optional<double> next;
    SloSearch::run(verdicts, 1, !sweep.rate, [&](double point) -> std::optional<bool> {
        next = point;
        return std::nullopt;
    });
    return next;
}

std::vector<ScheduledRun> SweepRounds::next(const ExperimentPlan& plan,
                                            const std::vector<ScheduledRun>& schedule,
                                            std::size_t index, const std::string& experiment,
                                            Store& store, std::int64_t session) {
    const ScheduledRun& s = schedule[index];
    const auto& sweep = plan.workloads[s.variant.workload].sweep;
    if (!sweep || sweep->slos.empty() || s.warmup || s.sweepRound >= sweep->bisectSteps)
        return {};
    if (index + 1 < schedule.size()) {
        const auto& after = schedule[index + 1];
        if (after.variant.workload == s.variant.workload &&
            after.variant.concurrency == s.variant.concurrency && !after.warmup &&
            after.sweepRound == s.sweepRound)
            return {}; // the round is not over
    }
    std::vector<std::pair<std::size_t, double>> probes; // arm, point
    for (std::size_t arm = 0; arm < plan.arms.size(); ++arm)
        if (const auto point = probe(*sweep, store, experiment, plan.arms[arm].label, session))
            probes.emplace_back(arm, *point);
    std::vector<ScheduledRun> out;
    for (int rep = 1; rep <= plan.repetitions; ++rep) {
        auto order = probes;
        // As the grid: abba reverses every other repetition; the other orders keep the arms'.
        if (plan.order == ExperimentPlan::Order::Abba && rep % 2 == 0)
            std::reverse(order.begin(), order.end());
        for (const auto& [arm, point] : order)
            out.push_back({arm, s.variant, rep, false, point, s.sweepRound + 1});
    }
    return out;
}

} // namespace tierscope
