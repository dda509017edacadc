#include "experiments/LoadSweep.h"

#include "core/compare/KpiLevel.h"
#include "core/compare/RunKpis.h"
#include "core/compare/SloSearch.h"
#include "core/compare/ValidityChecks.h"
#include "core/store/Store.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierscope {

namespace {

nlohmann::json orNull(std::optional<double> v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The run values of one KPI at a point, and in how many measured runs it was missing.
std::vector<double> column(const std::vector<std::map<std::string, double>>& runs,
                           const std::string& name, std::size_t& missing) {
    std::vector<double> out;
    missing = 0;
    for (const auto& run : runs) {
        const auto it = run.find(name);
        if (it == run.end())
            ++missing;
        else
            out.push_back(it->second);
    }
    return out;
}

} // namespace

LoadSweep::LoadSweep(Options options, Store& store, std::int64_t session, const WallClock& clock,
                     Hooks hooks)
    : m_options(std::move(options)), m_store(store), m_session(session), m_clock(clock),
      m_hooks(std::move(hooks)) {}

std::string LoadSweep::label(Mode mode, double point) {
    char text[48];
    if (mode == Mode::Rate)
        std::snprintf(text, sizeof text, "rate %g", point);
    else
        std::snprintf(text, sizeof text, "c%g", point);
    return text;
}

const char* LoadSweep::modeName(Mode mode) {
    return mode == Mode::Rate ? "rate" : "concurrency";
}

void LoadSweep::atPoint(Mode mode, double point, LoadGenerator::Options& options,
                        nlohmann::json& params) {
    const bool rate = mode == Mode::Rate;
    options.rate = rate ? point : 0;
    options.concurrency = rate ? 0 : static_cast<int>(point);
    params["rate"] = options.rate;
    params["concurrency"] = options.concurrency;
    params["sweep_point"] = label(mode, point);
    params["sweep_mode"] = modeName(mode);
}

const std::vector<std::string>& LoadSweep::reported() {
    static const std::vector<std::string> names = {
        "request_throughput", "output_throughput", "goodput", "ttft_p50", "ttft_p99",
        "tpot_p50",           "tpot_p99",          "itl_p50", "itl_p99",  "failure_rate"};
    return names;
}

// One run at `value`: the load as `load` and an experiment's load run send it, with the
// prompts of seed + `repetition` (each repetition its own, the same at every point, as an
// experiment's arms: a later run is not served from the prefix cache an earlier one filled),
// stored with its requests and summary as `status`, or "cancelled". `requests` > 0 sends that
// many instead of the generator's count or duration; `probe` is stored unless empty.
LoadSweep::Sent LoadSweep::send(double value, int repetition, const std::string& probe,
                                int requests, const char* status) {
    const bool rate = m_options.mode == Mode::Rate;
    auto options = m_options.generator;
    MeasuredLoad load = m_options.load;
    load.seed += static_cast<std::uint64_t>(repetition);
    options.seed = load.seed;
    nlohmann::json params = m_options.params;
    params["seed"] = load.seed;
    if (requests > 0) {
        options.requests = load.count = requests;
        options.duration = {};
        params["requests"] = requests;
    }
    atPoint(m_options.mode, value, options, params);
    if (!probe.empty())
        params["sweep_probe"] = probe; // as a plan's sweep stores it: the chart's tooltips
    Sent out;
    out.run = m_store.createRun(m_session, "load", params.dump(), m_clock.nowNs(),
                                m_options.experiment, label(m_options.mode, value), repetition);
    LoadGenerator generator(options, load.prompts().measured, m_clock);
    const auto sent = generator.run({}, m_hooks.cancel);
    out.cancelled = m_hooks.cancel && *m_hooks.cancel;
    auto summary = LoadSummary::compute(sent, generator.durationS(), generator.maxConcurrent(),
                                        m_options.goodput.value_or(LoadSummary::Slo{}), rate);
    for (const auto& r : sent)
        out.failed += !r.ok();
    out.completed = static_cast<long>(sent.size()) - out.failed;
    if (!out.cancelled)
        summary["validity"] = nlohmann::json::array(
            {ValidityChecks::errors(out.failed, static_cast<long>(sent.size()), std::nullopt)});
    if (rate)
        summary["request_rate"] = options.rate;
    else
        summary["max_concurrency"] = options.concurrency;
    summary["endpoint"] = generator.displayEndpoint();
    m_store.addRequests(out.run, sent);
    m_store.finishRun(out.run, m_clock.nowNs(), out.cancelled ? "cancelled" : status,
                      summary.dump());
    return out;
}

// One run of the point, its KPIs read back from the store as `compare` reads them.
void LoadSweep::measure(Point& point, int repetition) {
    if (m_hooks.cancel && *m_hooks.cancel)
        return;
    if (m_hooks.beforeRun)
        m_hooks.beforeRun();
    const Sent sent = send(point.value, repetition, point.probe, 0, "completed");
    point.runs.push_back(sent.run);
    if (sent.cancelled) {
        ++point.failedRuns;
        return;
    }
    const auto info = m_store.run(sent.run);
    point.kpis.push_back(RunKpis::of(*info, m_store.requests(sent.run), nullptr));
    if (m_hooks.say) {
        const auto& k = point.kpis.back();
        const auto it = k.find("ttft_p99");
        m_hooks.say(label(m_options.mode, point.value) + ", repetition " +
                    std::to_string(repetition) + ": run " + std::to_string(sent.run) + ", " +
                    std::to_string(sent.completed) + " completed, " + std::to_string(sent.failed) +
                    " failed, TTFT p99 " +
                    (it == k.end() ? std::string("n/a") : UnitFormat::kpi(it->second, "s")));
    }
}

// Every SLO must be shown to hold, by the one rule `compare` reads capacities with.
std::optional<bool> LoadSweep::holds(const Point& point) const {
    return SloBound::allHold(m_options.slos, point.kpis);
}

nlohmann::json LoadSweep::describe(const Point& point) const {
    nlohmann::json out = {{"label", label(m_options.mode, point.value)},
                          {m_options.mode == Mode::Rate ? "rate" : "concurrency", point.value},
                          {"probe", point.probe},
                          {"runs", point.runs},
                          {"measured_runs", point.kpis.size()}};
    std::vector<std::string> names = reported();
    for (const auto& slo : m_options.slos)
        if (std::find(names.begin(), names.end(), slo.kpi) == names.end())
            names.push_back(slo.kpi);
    nlohmann::json kpis = nlohmann::json::object();
    for (const auto& name : names) {
        std::size_t missing = 0;
        const auto level = KpiLevel::of(column(point.kpis, name, missing));
        if (!level)
            continue;
        const auto* d = RunKpis::find(name);
        kpis[name] = {
            {"estimate", level->estimate},
            {"lo", orNull(level->interval ? std::optional(level->interval->lo) : std::nullopt)},
            {"hi", orNull(level->interval ? std::optional(level->interval->hi) : std::nullopt)},
            {"mean", level->meanKind()},
            {"runs", level->runs},
            {"unit", d ? d->unit : ""}};
        if (missing > 0)
            kpis[name]["missing_runs"] = missing;
    }
    out["kpis"] = kpis;
    if (m_options.slos.empty())
        return out;
    nlohmann::json slos = nlohmann::json::array();
    for (const auto& slo : m_options.slos) {
        std::size_t missing = 0;
        const auto level = KpiLevel::of(column(point.kpis, slo.kpi, missing));
        const auto end = level ? slo.judgedEnd(*level) : std::nullopt;
        const bool ok = missing == 0 && level && slo.holds(*level).value_or(false);
        slos.push_back({{"slo", slo.text},
                        {"holds", ok},
                        {"judged", orNull(end)},
                        {"judged_end", slo.atMost ? "hi" : "lo"},
                        {"threshold", slo.threshold},
                        {"unit", slo.unit}});
    }
    out["slo"] = slos;
    out["holds"] = holds(point) ? nlohmann::json(*holds(point)) : nlohmann::json(nullptr);
    return out;
}

// Repetition 0: its prompts (seed + 0) are none of the repetitions' (seed + 1, + 2, ...).
void LoadSweep::warmUp() {
    if (m_options.warmupRequests <= 0 || m_options.points.empty() ||
        (m_hooks.cancel && *m_hooks.cancel))
        return;
    const double lowest = *std::min_element(m_options.points.begin(), m_options.points.end());
    const Sent sent = send(lowest, 0, "", m_options.warmupRequests, "warmup");
    if (m_hooks.say)
        m_hooks.say("warm-up at " + label(m_options.mode, lowest) + ": run " +
                    std::to_string(sent.run) + ", " + std::to_string(sent.completed + sent.failed) +
                    " requests, not measured");
}

nlohmann::json LoadSweep::run() {
    warmUp();
    std::vector<Point> grid;
    for (const double v : m_options.points)
        grid.push_back({v, "grid", {}, {}, 0});
    for (int rep = 1; rep <= m_options.repetitions; ++rep)
        for (auto& point : grid)
            measure(point, rep);
    const bool rate = m_options.mode == Mode::Rate;
    nlohmann::json report = {{"experiment", m_options.experiment},
                             {"session_id", m_session},
                             {"mode", rate ? "rate" : "concurrency"},
                             {"repetitions", m_options.repetitions}};
    std::vector<Point> bisected;
    if (!m_options.slos.empty()) {
        std::vector<std::pair<double, bool>> verdicts;
        for (const auto& p : grid)
            verdicts.emplace_back(p.value, holds(p).value_or(false));
        const auto probe = [&](double v) -> std::optional<bool> {
            Point p{v, "bisection", {}, {}, 0};
            for (int rep = 1; rep <= m_options.repetitions; ++rep)
                measure(p, rep);
            if (p.failedRuns > 0 || p.kpis.empty())
                return std::nullopt; // cancelled: no verdict
            bisected.push_back(p);
            return holds(p);
        };
        const auto found = SloSearch::run(verdicts, m_options.bisectSteps, !rate, probe);
        nlohmann::json slos = nlohmann::json::array();
        for (const auto& s : m_options.slos)
            slos.push_back(s.text);
        report["slo"] = slos;
        report[rate ? "max_rate_at_slo" : "max_concurrency_at_slo"] = {
            {"value", orNull(found.holdsAt)},      {"holds_at", orNull(found.holdsAt)},
            {"fails_at", orNull(found.failsAt)},   {"reached", found.reached()},
            {"unit", rate ? "req/s" : "requests"}, {"bisected", found.bisected},
            {"holds_above", found.holdsAbove}};
    }
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : grid)
        points.push_back(describe(p));
    for (const auto& p : bisected)
        points.push_back(describe(p));
    report["points"] = points;
    report["cancelled"] = m_hooks.cancel && *m_hooks.cancel;
    return report;
}

} // namespace tierscope
