#include "app/commands/RunCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/GateExitCode.h"
#include "app/common/RemoteJob.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "core/report/ComparisonReport.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"
#include "experiments/ExperimentRunner.h"
#include "experiments/LoadSweep.h"
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
    cmd->add_flag("--dry-run", o.dryRun, "Print the run order and exit");
    cmd->add_option("--format", o.format, "Report format: text, md, json, csv or html")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "csv", "html"}));
    cmd->add_option("--report", o.report, "Write the comparison report here (default: stdout)");
    cmd->footer("Exit status: 0 when the plan ran and every gate passed; 11 a gate failed; "
                "12 a gate was inconclusive; 1 the experiment is incomplete (a failed setup "
                "with on_failure = \"stop\", or Ctrl-C) or every run failed.");
    return cmd;
}

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
    if (o.dryRun) {
        const auto schedule = RunSchedule::build(plan);
        for (std::size_t i = 0; i < schedule.size(); ++i) {
            const auto& s = schedule[i];
            auto shown = [](const std::string& text) {
                return TerminalOutput::shown(STDOUT_FILENO, text);
            };
            std::string experiment = ExperimentRunner::experimentName(plan, s.variant);
            if (const auto& sweep = plan.workloads[s.variant.workload].sweep)
                experiment += " at " + LoadSweep::label(sweep->rate ? LoadSweep::Mode::Rate
                                                                    : LoadSweep::Mode::Concurrency,
                                                        s.sweepPoint);
            std::printf("%3zu  %-16s %-28s %s\n", i + 1, shown(plan.arms[s.arm].label).c_str(),
                        shown(experiment).c_str(),
                        s.warmup ? "warm-up"
                                 : ("repetition " + std::to_string(s.repetition)).c_str());
        }
        for (const auto& command : ExperimentRunner::commands(plan))
            std::printf("runs: %s\n", TerminalOutput::shown(STDOUT_FILENO, command).c_str());
        return kExitOk;
    }

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
    ExperimentRunner runner(plan, {global.dbPath(), planText}, callbacks);
    ExperimentRunner::Result result;
    {
        CancelOnSignal cancel;
        result = runner.run(CancelOnSignal::flag());
    }

    Store store(global.dbPath(), Store::Mode::ReadOnly);
    auto comparisons = ExperimentRunner::compare(store, plan, o.format == "html", result.sessionId);
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
    if (result.incomplete)
        return kExitFailure;
    // Nothing was measured: no gate can pass, and 0 would read as success in a script.
    if (result.runs > 0 && result.failed >= static_cast<int>(result.runs)) {
        std::fprintf(stderr, "experiment \"%s\": every run failed\n", plan.name.c_str());
        return kExitFailure;
    }
    return gateExitCode(comparisons);
}

} // namespace tierscope
