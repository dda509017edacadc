#include "app/commands/CompareCommand.h"

#include "app/common/ExitCode.h"
#include "app/common/GateExitCode.h"
#include "app/common/TerminalOutput.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"

#include <fstream>
#include <iostream>
#include <unistd.h>

namespace tierscope {

CLI::App* CompareCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "compare", "Compare B against A: TTFT, ITL, throughput, failure rate and storage KPIs, "
                   "each computed per run, with 95 % intervals over the runs and "
                   "pass/fail/undecided gate verdicts");
    cmd->add_option("A", o.a,
                    "Baseline: run:N (or N), run:1,2,3, run:4-6, session:N or "
                    "arm:EXPERIMENT/ARM[@SESSION|@all]")
        ->required();
    cmd->add_option("B", o.b, "Candidate, same forms")->required();
    cmd->add_option("--gate", o.gates,
                    "A criterion such as \"ttft_p50 <= -25%\" or \"model_load_time <= 0.5x\" "
                    "(repeatable)");
    cmd->add_option("--gate-preset", o.presets, "Named gates from resources/gates.toml, e.g. G3");
    cmd->add_option("--format", o.format,
                    "text, md, json, csv or html (html embeds the charts, plan, hosts and "
                    "devices)")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "csv", "html"}));
    cmd->add_option("--out", o.out, "Write the report here instead of standard output");
    cmd->add_option("--noise-floor", o.noiseFloor,
                    "Show every KPI against the noise floor of the A/A calibration in this "
                    "session (tierscope run PLAN --calibrate); default: the one the runs' plan "
                    "names")
        ->check(CLI::PositiveNumber);
    cmd->footer("The run is the unit: a and b are means of per-run values (a run's p50 TTFT, "
                "its throughput), and the interval of B - A is Welch's t-interval over the runs "
                "(on the logs for ratio and relative gates). With one run a side there is no "
                "interval and gates are undecided: repeat the runs. Warm-up, failed and "
                "cancelled runs are left out; a side that mixes workloads or concurrencies is "
                "refused. \"failure_rate <= 1%\" bounds B's failure rate itself.\n"
                "Exit status: 0 when every gate passes (or none is given), 11 when a gate fails, "
                "12 when none fails but one is undecided, 13 when a run's validity check "
                "failed (the comparison is INVALID and no gate is judged).");
    return cmd;
}

int CompareCommand::run(const GlobalOptions& global, const Options& o) {
    ComparisonResult in;
    try {
        ComparisonBuilder::Options options;
        options.gates = ComparisonBuilder::gates(o.gates, o.presets);
        if (o.noiseFloor > 0)
            options.noiseFloorSession = o.noiseFloor;
        Store store(global.dbPath(), Store::Mode::ReadOnly);
        const auto a = ComparisonBuilder::resolve(store, o.a);
        const auto b = ComparisonBuilder::resolve(store, o.b);
        in = ComparisonBuilder::build(store, a, b, options);
        if (o.format == "html")
            ComparisonCharts::attach(in, a, b);
    } catch (const ComparisonBuilder::UsageError& e) {
        std::cerr << "tierscope compare: " << e.what() << "\n";
        return kExitUsage;
    }
    in.toolVersion = kToolVersion;
    in.generatedUtc = UnitFormat::utcTime(WallClock().nowNs());
    const std::string report = ComparisonReport::render(o.format, in);
    if (o.out.empty()) {
        std::cout << TerminalOutput::shown(STDOUT_FILENO, report);
    } else {
        try {
            ReportFile::write(o.out, report);
        } catch (const std::exception& e) {
            std::cerr << "tierscope compare: " << e.what() << "\n";
            return kExitCannotWrite;
        }
    }
    return gateExitCode({in});
}

} // namespace tierscope
