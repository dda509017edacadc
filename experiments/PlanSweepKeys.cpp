#include "experiments/PlanSweepKeys.h"

#include "experiments/ExperimentPlan.h"
#include "experiments/PlanError.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace tierscope {

namespace {

constexpr const char* kKeys[] = {"sweep_rates", "sweep_concurrency", "slo", "bisect_steps"};
constexpr int kMaxBisectSteps = 20;
constexpr std::size_t kMaxPoints = 1000;

std::vector<double> points(const toml::node& node, bool rate) {
    const char* what = rate ? "sweep_rates is a list of request rates above 0, such as [1, 2, 4]"
                            : "sweep_concurrency is a list of whole numbers of at least 1, such "
                              "as [1, 4, 16]";
    const auto* list = node.as_array();
    if (!list || list->empty() || list->size() > kMaxPoints)
        PlanError::at(node, what);
    std::vector<double> out;
    for (const auto& v : *list) {
        const auto x = v.value<double>();
        const bool whole = v.is_integer();
        if (!(v.is_integer() || v.is_floating_point()) || !x || !std::isfinite(*x) || *x <= 0 ||
            (!rate && (!whole || *x > 1'000'000)))
            PlanError::at(v, what);
        out.push_back(*x);
    }
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end()) != out.end())
        PlanError::at(node, std::string(rate ? "sweep_rates" : "sweep_concurrency") +
                                " gives a point twice");
    return out;
}

std::vector<SloBound> slos(const toml::node& node) {
    const auto* list = node.as_array();
    if (!list || list->empty())
        PlanError::at(node, "slo is a list of bounds on run KPIs, such as [\"ttft_p99<=2s\", "
                            "\"tpot_p99<=100ms\"]");
    std::vector<SloBound> out;
    for (const auto& v : *list) {
        if (!v.is_string())
            PlanError::at(v, "slo is a list of strings such as \"ttft_p99<=2s\"");
        std::string error;
        auto slo = SloBound::parse(v.as_string()->get(), error);
        if (!slo)
            PlanError::at(v, "slo: " + error);
        out.push_back(std::move(*slo));
    }
    return out;
}

} // namespace

bool PlanSweepKeys::owns(const std::string& key) {
    return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::optional<PlanSweep> PlanSweepKeys::take(const toml::table& t) {
    if (t["kind"].value_or(std::string()) != "load")
        return std::nullopt; // checkKeys refuses the sweep keys there as unknown
    const auto* rates = t.get("sweep_rates");
    const auto* concurrency = t.get("sweep_concurrency");
    if (!rates && !concurrency) {
        for (const char* key : {"slo", "bisect_steps"})
            if (const auto* v = t.get(key))
                PlanError::at(
                    *v, std::string(key) +
                            " needs sweep_rates or sweep_concurrency: an SLO is judged at each "
                            "point of a sweep, and the capacity is the highest point it holds at");
        return std::nullopt;
    }
    if (rates && concurrency)
        PlanError::at(*concurrency,
                      "give sweep_rates (open loop) or sweep_concurrency (closed loop), not "
                      "both");
    const auto& list = rates ? *rates : *concurrency;
    for (const char* key : {"rate", "concurrency"})
        if (const auto* v = t.get(key))
            PlanError::at(*v, std::string(key) +
                                  " does not go with a sweep, which sets it at each point: "
                                  "list the points in sweep_rates or sweep_concurrency");
    if (t["dataset"].value_or(std::string()) == "trace")
        PlanError::at(list,
                      "a trace sends each request at its own time, so it cannot be swept; a sweep "
                      "sends synthetic or shared-prefix prompts");
    PlanSweep sweep;
    sweep.rate = rates != nullptr;
    sweep.points = points(list, sweep.rate);
    if (const auto* v = t.get("slo")) {
        sweep.slos = slos(*v);
        sweep.sloLine = static_cast<int>(v->source().begin.line);
    }
    if (const auto* v = t.get("bisect_steps")) {
        if (sweep.slos.empty())
            PlanError::at(
                *v, "bisect_steps goes with slo: the bisection looks for the highest point where "
                    "the SLOs hold");
        const auto steps = v->value<std::int64_t>();
        if (!v->is_integer() || !steps || *steps < 0 || *steps > kMaxBisectSteps)
            PlanError::at(*v, "bisect_steps is a whole number from 0 to " +
                                  std::to_string(kMaxBisectSteps));
        sweep.bisectSteps = static_cast<int>(*steps);
    }
    return sweep;
}

void PlanSweepKeys::check(const ExperimentPlan& plan) {
    double runs = 0; // as ExperimentPlan counts them, in doubles so no product overflows
    const double repetitions = plan.repetitions, warmup = plan.warmup;
    for (const auto& w : plan.workloads) {
        const double variantRuns =
            w.sweep
                ? static_cast<double>(w.sweep->points.size()) * repetitions +
                      (w.sweep->slos.empty() ? 0.0 : w.sweep->bisectSteps * repetitions) + warmup
                : static_cast<double>(std::max<std::size_t>(1, w.concurrency.size())) *
                      (warmup + repetitions);
        runs += variantRuns * static_cast<double>(plan.arms.size());
        if (w.sweep && !w.sweep->slos.empty() && plan.repetitions < 2)
            throw std::runtime_error(
                "plan, line " + std::to_string(w.sweep->sloLine) +
                ": slo needs repetitions = 2 or more: an SLO holds at a point when the upper end "
                "of its run-level 95 % interval is within the bound, and one run has no interval");
    }
    if (runs > ExperimentPlan::kMaxRuns)
        throw std::runtime_error("plan: " + std::to_string(static_cast<long long>(runs)) +
                                 " runs, load sweeps' points and bisection probes counted; the "
                                 "limit is " +
                                 std::to_string(ExperimentPlan::kMaxRuns));
}

} // namespace tierscope
