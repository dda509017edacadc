#include "app/CompareCommand.h"

#include "app/ExitCode.h"
#include "core/Comparison.h"
#include "core/ComparisonReport.h"
#include "core/GatePresets.h"
#include "core/Store.h"
#include "core/StoreError.h"
#include "core/UnitFormat.h"
#include "core/Version.h"
#include "core/WallClock.h"

#include <fstream>
#include <iostream>

namespace tierscope {

namespace {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::int64_t number(const std::string& text, const std::string& spec) {
    try {
        std::size_t used = 0;
        const long long n = std::stoll(text, &used);
        if (used == text.size() && n > 0)
            return n;
    } catch (...) {
    }
    throw UsageError("\"" + spec + "\" is not run:N, session:N or arm:EXPERIMENT/ARM");
}

std::string sessionLabel(Store& store, std::int64_t id) {
    const auto s = store.session(id);
    if (!s)
        return "session " + std::to_string(id);
    return "session " + std::to_string(id) + (s->label.empty() ? "" : " \"" + s->label + "\"") +
           (s->storageProfile.empty() ? "" : " [" + s->storageProfile + "]");
}

// Resolves "run:N", "N", "session:N" or "arm:EXPERIMENT/ARM" to its runs and their requests.
ComparisonSide resolve(Store& store, const std::string& spec) {
    ComparisonSide side;
    const auto colon = spec.find(':');
    const std::string kind = colon == std::string::npos ? "run" : spec.substr(0, colon);
    const std::string rest = colon == std::string::npos ? spec : spec.substr(colon + 1);
    if (kind == "run") {
        const auto run = store.run(number(rest, spec));
        if (!run)
            throw StoreError(StoreError::Code::NotFound, "no run " + rest);
        side.runs.push_back(*run);
        side.label =
            "run " + rest + " (" + run->workload + ") in " + sessionLabel(store, run->sessionId);
    } else if (kind == "session") {
        const std::int64_t id = number(rest, spec);
        if (!store.session(id))
            throw StoreError(StoreError::Code::NotFound, "no session " + rest);
        side.runs = store.runsOfSession(id);
        side.label = sessionLabel(store, id) + ", " + std::to_string(side.runs.size()) + " run(s)";
    } else if (kind == "arm") {
        const auto slash = rest.rfind('/'); // experiment names hold slashes, arm labels do not
        if (slash == std::string::npos)
            throw UsageError("an arm is arm:EXPERIMENT/ARM");
        side.runs = store.runsOfArm(rest.substr(0, slash), rest.substr(slash + 1));
        side.label = "arm " + rest + ", " + std::to_string(side.runs.size()) + " run(s)";
    } else {
        throw UsageError("\"" + spec + "\" is not run:N, session:N or arm:EXPERIMENT/ARM");
    }
    if (side.runs.empty())
        throw StoreError(StoreError::Code::NotFound, side.label + ": nothing to compare");
    for (const auto& r : side.runs)
        side.requests.push_back(store.requests(r.id));
    return side;
}

std::vector<Gate> gatesOf(const CompareCommand::Options& o) {
    std::vector<std::string> texts = o.gates;
    for (const auto& name : o.presets) {
        const auto it = GatePresets::builtin().find(name);
        if (it == GatePresets::builtin().end()) {
            std::string names;
            for (const auto& [n, g] : GatePresets::builtin())
                names += (names.empty() ? "" : ", ") + n;
            throw UsageError("no gate preset \"" + name + "\"; presets: " + names);
        }
        texts.insert(texts.end(), it->second.begin(), it->second.end());
    }
    std::vector<Gate> gates;
    for (const auto& text : texts) {
        std::string error;
        auto gate = Gate::parse(text, error);
        if (!gate)
            throw UsageError(error);
        gates.push_back(*gate);
    }
    return gates;
}

} // namespace

CLI::App* CompareCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "compare", "Compare B against A: TTFT, ITL, throughput and storage KPIs with 95 % "
                   "bootstrap intervals, and pass/fail/inconclusive gate verdicts");
    cmd->add_option("A", o.a, "Baseline: run:N (or N), session:N or arm:EXPERIMENT/ARM")
        ->required();
    cmd->add_option("B", o.b, "Candidate, same forms")->required();
    cmd->add_option("--gate", o.gates,
                    "A criterion such as \"ttft_p50 <= -25%\" or \"model_load_time <= 0.5x\" "
                    "(repeatable)");
    cmd->add_option("--gate-preset", o.presets, "Named gates from resources/gates.toml, e.g. G3");
    cmd->add_option("--format", o.format, "text, md, json or html")
        ->capture_default_str()
        ->check(CLI::IsMember({"text", "md", "json", "html"}));
    cmd->add_option("--out", o.out, "Write the report here instead of standard output");
    cmd->add_option("--seed", o.seed, "Bootstrap seed")->capture_default_str();
    cmd->footer("Exit status: 0 when every gate passes (or none is given), 11 when a gate fails, "
                "12 when none fails but one is inconclusive.");
    return cmd;
}

int CompareCommand::run(const GlobalOptions& global, const Options& o) {
    ComparisonReport::Input in;
    try {
        const auto gates = gatesOf(o);
        Store store(global.dbPath(), Store::Mode::ReadOnly);
        const auto a = resolve(store, o.a);
        const auto b = resolve(store, o.b);
        in.labelA = a.label;
        in.labelB = b.label;
        in.kpis = Comparison::compare(a, b, o.seed);
        for (const auto& gate : gates) {
            Gate::Result result{Gate::Verdict::Inconclusive,
                                gate.kpi + " was not measured on both sides"};
            for (const auto& k : in.kpis)
                if (k.name == gate.kpi)
                    result = gate.judge(k);
            in.gates.emplace_back(gate, result);
        }
    } catch (const UsageError& e) {
        std::cerr << "tierscope compare: " << e.what() << "\n";
        return kExitUsage;
    }
    in.toolVersion = kToolVersion;
    in.generatedUtc = UnitFormat::utcTime(WallClock().nowNs());
    const std::string report = ComparisonReport::render(o.format, in);
    if (o.out.empty()) {
        std::cout << report;
    } else {
        std::ofstream out(o.out);
        out << report;
        if (!out) {
            std::cerr << "tierscope compare: cannot write " << o.out << "\n";
            return kExitCannotWrite;
        }
    }
    bool failed = false, inconclusive = false;
    for (const auto& [gate, result] : in.gates) {
        failed = failed || result.verdict == Gate::Verdict::Fail;
        inconclusive = inconclusive || result.verdict == Gate::Verdict::Inconclusive;
    }
    return failed ? kExitGateFailed : inconclusive ? kExitGateInconclusive : kExitOk;
}

} // namespace tierscope
