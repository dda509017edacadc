#include "experiments/PlanDesignKeys.h"

#include "core/compare/Gate.h"
#include "core/compare/RunKpis.h"
#include "core/compare/SequentialDesign.h"
#include "experiments/ExperimentPlan.h"
#include "experiments/PlanError.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tierscope {

namespace {

// The value as the plan wrote it, for the error: "2147483648", "\"2\"", "2.5".
std::string written(const toml::node& node) {
    if (const auto* text = node.as_string())
        return "\"" + text->get() + "\"";
    if (const auto v = node.value<long long>(); v && node.is_integer())
        return std::to_string(*v);
    if (const auto v = node.value<double>()) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", *v);
        return text;
    }
    return "a " + std::string(node.is_table() ? "table" : node.is_array() ? "list" : "value");
}

long long integer(const toml::node& node, long long min, long long max, const std::string& what) {
    const auto v = node.value<long long>();
    if (!node.is_integer() || !v || *v < min || *v > max)
        PlanError::at(node, what + ", not " + written(node));
    return *v;
}

// `[expected]` ttft_p50 = "-30%": a relative change per gated KPI.
void readExpected(const toml::node& node, ExperimentPlan& p) {
    const auto* table = node.as_table();
    if (!table)
        PlanError::at(node, "expected is a table of KPI = \"change\", such as "
                            "[expected] ttft_p50 = \"-30%\"");
    for (const auto& [key, value] : *table) {
        const std::string kpi(key.str());
        if (!RunKpis::find(kpi))
            PlanError::at(value,
                          "no KPI \"" + kpi + "\" in expected (see `tierscope compare --help`)");
        const auto text = value.value<std::string>();
        std::string error;
        // Parsed as a gate's threshold, so "-30%" and "0.7x" mean what they mean in gates.
        const auto gate = text ? Gate::parse(kpi + " <= " + *text, error) : std::nullopt;
        const auto ratio = gate ? gate->thresholdLog() : std::nullopt;
        if (!ratio)
            PlanError::at(value, "expected " + kpi + " is a change such as \"-30%\" or \"0.7x\"");
        p.expected[kpi] = std::exp(*ratio) - 1;
    }
}

} // namespace

void PlanDesignKeys::read(const toml::table& doc, ExperimentPlan& p) {
    if (const auto* reps = doc.get("repetitions")) {
        if (reps->is_string() && reps->value<std::string>() == "auto") {
            p.maxRepetitions = 20;
        } else {
            p.repetitions = static_cast<int>(
                integer(*reps, 1, INT_MAX,
                        "repetitions is a whole number from 1 to 2147483647, or \"auto\""));
        }
    }
    if (const auto* most = doc.get("max_repetitions")) {
        if (!p.maxRepetitions)
            PlanError::at(*most, "max_repetitions is for repetitions = \"auto\"");
        p.maxRepetitions = static_cast<int>(
            integer(*most, 2, INT_MAX, "max_repetitions is a whole number of at least 2"));
    }
    if (p.maxRepetitions)
        p.repetitions = std::min(SequentialDesign::kBlock, *p.maxRepetitions);
    if (const auto* calibrate = doc.get("calibrate")) {
        if (!calibrate->is_boolean())
            PlanError::at(*calibrate, "calibrate is true or false");
        p.calibrate = calibrate->value_or(false);
    }
    if (const auto* runs = doc.get("calibration_runs"))
        p.calibrationRuns = static_cast<int>(
            integer(*runs, 2, INT_MAX, "calibration_runs is a whole number of at least 2"));
    if (const auto* floor = doc.get("noise_floor"))
        p.noiseFloorSession = integer(*floor, 1, LLONG_MAX,
                                      "noise_floor is the session id of an earlier calibration");
    if (const auto* expected = doc.get("expected"))
        readExpected(*expected, p);
}

int PlanDesignKeys::mostRepetitions(const ExperimentPlan& p) {
    return p.maxRepetitions.value_or(p.repetitions);
}

void PlanDesignKeys::check(const ExperimentPlan& p) {
    if (p.maxRepetitions) {
        if (p.gates.empty())
            throw std::runtime_error("plan: repetitions = \"auto\" stops once every gate is "
                                     "decided, and the plan has no gates");
        for (const auto& w : p.workloads)
            if (w.sweep)
                throw std::runtime_error(
                    "plan: repetitions = \"auto\" is not for load sweeps: a sweep's capacity "
                    "is bracketed by its own bisection; give repetitions a number");
    }
    double variants = 0;
    for (const auto& w : p.workloads)
        variants += static_cast<double>(std::max<std::size_t>(1, w.concurrency.size()));
    // Counted in doubles, so no product overflows.
    const double repetitions = static_cast<double>(p.warmup) + mostRepetitions(p);
    const double runs = repetitions * static_cast<double>(p.arms.size()) * variants;
    if (runs > ExperimentPlan::kMaxRuns)
        throw std::runtime_error(
            "plan: " + std::to_string(static_cast<long long>(runs)) +
            " runs ((warmup + repetitions) x arms x workload variants); the limit is " +
            std::to_string(ExperimentPlan::kMaxRuns));
}

} // namespace tierscope
