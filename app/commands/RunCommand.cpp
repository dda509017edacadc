#include "app/commands/RunCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/GateExitCode.h"
#include "app/common/RemoteJob.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "core/compare/NoiseFloor.h"
#include "core/compare/PowerPlan.h"
#include "core/compare/SequentialDesign.h"
#include "core/compare/SequentialLook.h"
#include "core/report/ComparisonReport.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"
#include "experiments/CalibrationPlan.h"
#include "experiments/ExperimentRunner.h"
#include "experiments/LoadSweep.h"
#include "experiments/PlanDesignKeys.h"
#include "experiments/RunSchedule.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace tierscope {

CLI::App* RunCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "run", "Run an A/B experiment plan (TOML) headless: arms interleaved, the machine "
               "recorded throughout, then the comparison with its gates");
    cmd->add_option("plan", o.plan, "Plan file, e.g. resources/plans/disk-vs-shm.toml")
        ->check(CLI::ExistingFile);
    cmd->add_option("--target", o.target, TargetOption::kHelp);
    cmd->add_option("--attach", o.attach,
                    "With --target: show a job started there before (after a lost connection)");
    cmd->add_flag("--dry-run", o.dryRun,
                  "Print the run order, the commands and the runs each gate needs, and exit");
    cmd->add_flag("--calibrate", o.calibrate,
                  "Run the plan's first arm against itself (A/A) and report the rig's noise "
                  "floor per KPI: its session id is what a plan's noise_floor names");
    cmd->add_option("--runs", o.calibrationRuns,
                    "With --calibrate: repetitions of each copy (default the plan's "
                    "calibration_runs, 8)")
        ->check(CLI::Range(2, 100000));
    cmd->add_option("--format", o.format, "Report format: text, md, json, csv or html")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "csv", "html"}));
    cmd->add_option("--report", o.report, "Write the comparison report here (default: stdout)");
    cmd->footer("Exit status: 0 when the plan ran and every gate passed (--calibrate: when the "
                "calibration ran); 11 a gate failed; 12 a gate is undecided (the report says "
                "how many runs would decide it); 13 the comparison is INVALID; 1 the experiment "
                "is incomplete (a failed setup with on_failure = \"stop\", or Ctrl-C) or every "
                "run failed.");
    return cmd;
}

namespace {

struct Executed {
    ExperimentRunner::Result result;
    std::vector<ComparisonResult> comparisons;
};

// One execution of a plan, with its progress on stderr, then its comparisons.
Executed execute(const GlobalOptions& global, const ExperimentPlan& plan,
                 const std::string& planText, bool charts) {
    ExperimentRunner::Callbacks callbacks;
    auto shown = [](const std::string& text) { return TerminalOutput::shown(STDERR_FILENO, text); };
    callbacks.started = [shown](const ExperimentRunner::Step& s) {
        std::fprintf(stderr, "[%zu/%zu] %s, %s%s, %s\n", s.index + 1, s.total, shown(s.arm).c_str(),
                     shown(s.experiment).c_str(), s.point.empty() ? "" : (" at " + s.point).c_str(),
                     s.warmup ? "warm-up" : ("repetition " + std::to_string(s.repetition)).c_str());
    };
    callbacks.finished = [shown](const ExperimentRunner::Step&,
                                 const ExperimentRunner::StepResult& r) {
        std::fprintf(stderr, "  %s: %s\n", r.status.c_str(), shown(r.detail).c_str());
    };
    callbacks.message = [shown](const std::string& text) {
        std::fprintf(stderr, "%s\n", shown(text).c_str());
    };
    callbacks.looked = [shown](int repetitions, const std::vector<ComparisonResult>& comparisons) {
        for (const auto& g : SequentialLook::of(comparisons).gates)
            std::fprintf(stderr, "  after %d repetitions: %s: %s (%s)\n", repetitions,
                         shown(g.gate).c_str(), Gate::name(g.verdict), shown(g.reason).c_str());
    };
    ExperimentRunner runner(plan, {global.dbPath(), planText}, callbacks);
    Executed out;
    {
        CancelOnSignal cancel;
        out.result = runner.run(CancelOnSignal::flag());
    }
    Store store(global.dbPath(), Store::Mode::ReadOnly);
    out.comparisons = ExperimentRunner::compare(store, plan, charts, out.result.sessionId);
    return out;
}

// The calibration's floor, KPI by KPI, on stderr: what a plan's noise_floor will show.
void printFloor(const GlobalOptions& global, const ExperimentPlan& calibration,
                std::int64_t session, int runsPerArm) {
    Store store(global.dbPath(), Store::Mode::ReadOnly);
    for (const auto& variant : calibration.variants()) {
        const auto floor = NoiseFloor::load(store, session,
                                            ExperimentRunner::experimentName(calibration, variant));
        if (!floor || floor->kpis.empty())
            continue;
        std::fprintf(stderr, "noise floor of %s (session %lld):\n", floor->experiment.c_str(),
                     static_cast<long long>(session));
        for (const auto& [kpi, f] : floor->kpis) {
            const auto at = floor->halfWidth(kpi, runsPerArm, runsPerArm, 0.95);
            std::fprintf(stderr, "  %-28s CV %5.1f %%  A/A %s%s  floor at %d runs per arm +-%s\n",
                         kpi.c_str(), f.cv * 100, KpiComparison::percent(f.aaChange).c_str(),
                         f.aaLo ? (" [" + KpiComparison::percent(*f.aaLo) + ", " +
                                   KpiComparison::percent(*f.aaHi) + "]")
                                      .c_str()
                                : "",
                         runsPerArm, at ? KpiComparison::percent(*at).substr(1).c_str() : "n/a");
        }
    }
    std::fprintf(stderr, "a plan carries this floor with noise_floor = %lld\n",
                 static_cast<long long>(session));
}

// --dry-run: the order, the commands, and what each gate needs.
void printDryRun(const GlobalOptions& global, const ExperimentPlan& plan) {
    const auto schedule = RunSchedule::build(plan);
    auto shown = [](const std::string& text) { return TerminalOutput::shown(STDOUT_FILENO, text); };
    for (std::size_t i = 0; i < schedule.size(); ++i) {
        const auto& s = schedule[i];
        std::string experiment = ExperimentRunner::experimentName(plan, s.variant);
        if (const auto& sweep = plan.workloads[s.variant.workload].sweep)
            experiment += " at " + LoadSweep::label(sweep->rate ? LoadSweep::Mode::Rate
                                                                : LoadSweep::Mode::Concurrency,
                                                    s.sweepPoint);
        std::printf("%3zu  %-16s %-28s %s\n", i + 1, shown(plan.arms[s.arm].label).c_str(),
                    shown(experiment).c_str(),
                    s.warmup ? "warm-up" : ("repetition " + std::to_string(s.repetition)).c_str());
    }
    const std::optional<SequentialDesign> design =
        plan.maxRepetitions
            ? std::optional(SequentialDesign{SequentialDesign::looksFor(*plan.maxRepetitions)})
            : std::nullopt;
    if (design)
        std::printf("then blocks of %d repetitions until every gate is decided, at most %d "
                    "repetitions; every interval at %s\n",
                    SequentialDesign::kBlock, *plan.maxRepetitions, design->describe().c_str());
    for (const auto& command : ExperimentRunner::commands(plan))
        std::printf("runs: %s\n", shown(command).c_str());
    PowerPlan power;
    power.gates = ExperimentRunner::gates(plan);
    power.expected = plan.expected;
    power.budgetPerArm = PlanDesignKeys::mostRepetitions(plan);
    if (design)
        power.confidence = design->confidence();
    std::optional<NoiseFloor> floor;
    if (plan.noiseFloorSession && !plan.variants().empty()) {
        try {
            Store store(global.dbPath(), Store::Mode::ReadOnly);
            floor = NoiseFloor::load(store, *plan.noiseFloorSession,
                                     ExperimentRunner::experimentName(plan, plan.variants()[0]));
        } catch (const std::exception& e) {
            std::printf("noise floor: %s\n", e.what());
        }
        if (!floor)
            std::printf("noise floor: session %lld holds no calibration of this plan\n",
                        static_cast<long long>(*plan.noiseFloorSession));
    }
    power.floor = floor ? &*floor : nullptr;
    for (const auto& line : power.lines())
        std::printf("power: %s\n", shown(line).c_str());
}

} // namespace

int RunCommand::run(const GlobalOptions& global, const Options& o) {
    if (o.plan.empty() && (o.attach.empty() || !TargetOption::remote(o.target))) {
        std::cerr << "tierscope run: a plan file is required (or --target with --attach)\n";
        return kExitUsage;
    }
    ExperimentPlan plan;
    std::string planText;
    if (!o.attach.empty())
        return RemoteJob::attach(o.target, "run", o.attach, o.report);
    try {
        std::ifstream in(o.plan);
        std::stringstream text;
        text << in.rdbuf();
        planText = text.str();
        plan = ExperimentPlan::parse(planText);
    } catch (const std::exception& e) {
        std::cerr << "tierscope run: " << o.plan << ": " << e.what() << "\n";
        return kExitUsage;
    }
    if (TargetOption::remote(o.target) && !o.dryRun)
        return RemoteJob::start(o.target, "run", TargetOption::forwardedArgs("run", o.plan),
                                planText, o.report);
    if (o.calibrate || (plan.calibrate && !o.dryRun)) {
        const auto calibration = CalibrationPlan::of(
            plan, o.calibrationRuns > 0 ? std::optional<int>(o.calibrationRuns) : std::nullopt);
        if (o.dryRun) {
            printDryRun(global, calibration);
            return kExitOk;
        }
        std::fprintf(stderr, "A/A calibration: %s against itself, %d repetitions\n",
                     plan.arms.front().label.c_str(), calibration.repetitions);
        auto done =
            execute(global, calibration,
                    "# the A/A calibration of this plan (tierscope run --calibrate)\n" + planText,
                    o.format == "html");
        if (done.result.incomplete || done.result.failed >= static_cast<int>(done.result.runs))
            return finish(global, o, calibration, done.result, done.comparisons, true);
        printFloor(global, calibration, done.result.sessionId,
                   PlanDesignKeys::mostRepetitions(plan));
        if (o.calibrate)
            return finish(global, o, calibration, done.result, done.comparisons, true);
        plan.noiseFloorSession = done.result.sessionId;
    }
    if (o.dryRun) {
        printDryRun(global, plan);
        return kExitOk;
    }
    auto done = execute(global, plan, planText, o.format == "html");
    return finish(global, o, plan, done.result, done.comparisons, false);
}

// The report, the summary line and the exit status.
int RunCommand::finish(const GlobalOptions& global, const Options& o, const ExperimentPlan& plan,
                       const ExperimentRunner::Result& result,
                       std::vector<ComparisonResult>& comparisons, bool calibration) {
    for (auto& in : comparisons)
        in.generatedUtc = UnitFormat::utcTime(WallClock().nowNs());
    const std::string report = ComparisonReport::render(o.format, comparisons);
    if (o.report.empty()) {
        std::cout << TerminalOutput::shown(STDOUT_FILENO, report);
    } else {
        try {
            ReportFile::write(o.report, report);
        } catch (const std::exception& e) {
            std::cerr << "tierscope run: " << e.what() << "\n";
            return kExitCannotWrite;
        }
    }
    std::fprintf(stderr, "experiment \"%s\": %zu runs, %d failed%s; session %lld in %s\n",
                 TerminalOutput::shown(STDERR_FILENO, plan.name).c_str(), result.runs,
                 result.failed, result.incomplete ? ", INCOMPLETE" : "",
                 static_cast<long long>(result.sessionId), global.dbPath().c_str());
    if (!result.stopped.empty())
        std::fprintf(stderr, "experiment \"%s\": %s\n",
                     TerminalOutput::shown(STDERR_FILENO, plan.name).c_str(),
                     TerminalOutput::shown(STDERR_FILENO, result.stopped).c_str());
    if (result.incomplete)
        return kExitFailure;
    // Nothing was measured: no gate can pass, and 0 would read as success in a script.
    if (result.runs > 0 && result.failed >= static_cast<int>(result.runs)) {
        std::fprintf(stderr, "experiment \"%s\": every run failed\n", plan.name.c_str());
        return kExitFailure;
    }
    // An A/A is not a decision: its gates say only whether the rig could fool one.
    if (calibration) {
        for (const auto& in : comparisons)
            for (const auto& [gate, verdict] : in.gates)
                if (verdict.verdict == Gate::Verdict::Pass)
                    std::fprintf(stderr,
                                 "WARNING: gate \"%s\" passes on A/A: this rig's drift or noise "
                                 "alone can pass it\n",
                                 gate.text.c_str());
        return kExitOk;
    }
    return gateExitCode(comparisons);
}

} // namespace tierscope
