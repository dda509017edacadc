#include "core/report/ComparisonReport.h"

#include "core/compare/ComparisonVerdict.h"
#include "core/report/ComparisonHtml.h"
#include "core/report/CsvExporter.h"
#include "core/report/SvgChart.h"
#include "core/util/Redaction.h"
#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::string formatted(const char* format, double a, double b = 0) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, format, a, b);
    return buffer;
}

std::string escapeMarkdown(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '|' || c == '*' || c == '_' || c == '`' || c == '<' || c == '>' || c == '[' ||
            c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

struct Row {
    std::string name, a, b, difference, relative, ratio, ci, n, better;
};

Row row(const KpiComparison& k) {
    return {k.name,
            UnitFormat::kpi(k.a, k.unit),
            UnitFormat::kpi(k.b, k.unit),
            UnitFormat::kpi(k.difference(), k.unit),
            ComparisonReport::changeCell(k),
            ComparisonReport::ratioCell(k),
            ComparisonReport::intervalCell(k),
            std::to_string(k.countA) + " / " + std::to_string(k.countB) + " " + k.sampleKind,
            KpiComparison::verdictText(k.verdict()) + ComparisonReport::floorCell(k)};
}

} // namespace

std::vector<std::string> ComparisonReport::rowCells(const KpiComparison& k) {
    Row r = row(k);
    return {std::move(r.name),       std::move(r.a),        std::move(r.b),
            std::move(r.difference), std::move(r.relative), std::move(r.ratio),
            std::move(r.ci),         std::move(r.n),        std::move(r.better)};
}

std::vector<std::string> ComparisonReport::designLines(const ComparisonResult& in) {
    std::vector<std::string> out;
    for (const auto& k : in.kpis)
        if (k.looks > 0) {
            out.push_back("Design: repetitions until every gate is decided; every interval is " +
                          k.intervalName() + ", so no look lifts a gate's false pass above 2.5 %");
            break;
        }
    if (!in.noiseFloor.empty())
        out.push_back("Noise floor: " + in.noiseFloor +
                      "; a KPI's floor is the half-width of the interval an unchanged system "
                      "gives at its run counts");
    return out;
}

std::string ComparisonReport::shareCell(const std::optional<double>& share) {
    return share ? formatted("%.0f %%", *share * 100) : "n/a";
}

namespace {

// Labels come from users: a cell starting with = + - @ would run as a spreadsheet formula.
std::string csvField(const std::string& s) {
    return CsvExporter::quote(s);
}

std::string number(double v) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
}

// Words to lines of at most `width` characters, for the terminal.
std::string wrap(const std::string& text, std::size_t width) {
    std::string out, line;
    std::size_t from = 0;
    while (from < text.size()) {
        const auto space = std::min(text.find(' ', from), text.size());
        const std::string word = text.substr(from, space - from);
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
        from = space + 1;
    }
    return out + line + "\n";
}

} // namespace

namespace {

nlohmann::json routesJson(const ComparisonResult& in) {
    nlohmann::json out = nlohmann::json::array();
    auto value = [](const std::optional<double>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json();
    };
    for (const auto& [side, run, r] : in.routes) {
        nlohmann::json below = nlohmann::json::object(), confounds = nlohmann::json::array();
        for (const auto& [name, b] : r.belowBytes)
            below[name] = b;
        for (const auto& c : r.confounds())
            confounds.push_back({{"id", c.id}, {"text", c.text}});
        out.push_back({{"side", std::string(1, side)},
                       {"run", run},
                       {"engine_tier_bytes", value(r.engineTierBytes)},
                       {"engine_tier_source", r.engineTierSource},
                       {"device", r.device.empty() ? nlohmann::json() : nlohmann::json(r.device)},
                       {"device_why", r.deviceWhy},
                       {"device_read_bytes", value(r.deviceBytes)},
                       {"below", below},
                       {"nic_rx_bytes", value(r.nicBytes)},
                       {"rdma_rx_bytes", value(r.rdmaBytes)},
                       {"engine_gpu_load_bytes", value(r.engineGpuLoadBytes)},
                       {"gpu_pcie_rx_bytes", value(r.gpuRxBytes)},
                       {"confounds", confounds}});
    }
    return out;
}

// Each load sweep's points, as the capacity row was read off them: the chart's data.
nlohmann::json curvesJson(const ComparisonResult& in) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : in.curves) {
        nlohmann::json points = nlohmann::json::array(), slos = nlohmann::json::array();
        for (const auto& slo : c.slos)
            slos.push_back(slo.text);
        for (const auto& p : c.points) {
            nlohmann::json kpis = nlohmann::json::object();
            for (const auto& [name, l] : p.kpis) {
                kpis[name] = {{"estimate", l.estimate}, {"runs", l.runs}, {"mean", l.meanKind()}};
                if (l.interval)
                    kpis[name]["ci95"] = {l.interval->lo, l.interval->hi};
            }
            points.push_back({{"label", p.label},
                              {"load", p.load},
                              {"probe", p.probe},
                              {"holds", p.holds ? nlohmann::json(*p.holds) : nlohmann::json()},
                              {"kpis", kpis}});
        }
        out.push_back({{"series", c.series}, {"mode", c.mode}, {"slo", slos}, {"points", points}});
    }
    return out;
}

} // namespace

std::string ComparisonReport::changeCell(const KpiComparison& k) {
    return k.a != 0 ? KpiComparison::percent(k.relative()) : "n/a";
}

std::string ComparisonReport::ratioCell(const KpiComparison& k) {
    return k.a != 0 ? formatted("%.3fx", k.ratio()) : "n/a";
}

std::string ComparisonReport::intervalHeader(const ComparisonResult& in) {
    for (const auto& k : in.kpis)
        if (k.interval)
            return k.intervalName();
    return "95 % CI";
}

std::string ComparisonReport::floorCell(const KpiComparison& k) {
    if (!k.floor)
        return "";
    const std::string floor = "floor +-" + KpiComparison::percent(*k.floor).substr(1);
    return k.withinFloor() ? ", within noise (" + floor + ")" : ", " + floor;
}

std::string ComparisonReport::intervalCell(const KpiComparison& k) {
    if (!k.interval) {
        const std::size_t fewest = std::min(k.countA, k.countB);
        return "n/a (" + std::to_string(fewest) + " run" + (fewest == 1 ? "" : "s") +
               ": repeat the run to get an interval)";
    }
    if (const auto r = k.relativeInterval())
        return "[" + KpiComparison::percent(r->lo) + ", " + KpiComparison::percent(r->hi) + "]";
    return "B-A [" + UnitFormat::kpi(k.interval->lo, k.unit) + ", " +
           UnitFormat::kpi(k.interval->hi, k.unit) + "]";
}

const char* ComparisonReport::footnote() {
    return "The run is the unit: every KPI is computed per measured run (completed or imported; "
           "warm-up, failed and cancelled runs are excluded) and has one 95 % interval, which the "
           "change, the verdict, the headline, the chart and the gates all use. A KPI whose run "
           "values are all positive (a latency, a throughput) is compared as a ratio: A and B are "
           "geometric means of the runs, the change is B/A - 1 and its interval is Welch's "
           "t-interval on the logs of the run values, so no fall exceeds what a positive quantity "
           "allows. A time "
           "share, a failure rate, or a KPI where a run measured zero is compared as a difference: "
           "A and B are means and the interval is Welch's, of B - A in the KPI's unit (marked "
           "B-A). \"better\" names a side only when the interval excludes no change; it is "
           "judged KPI by KPI, so among many KPIs with no real difference about one in twenty "
           "still shows a side by chance in the table. The verdict line names a side by one "
           "primary figure alone (the first gate's KPI, else TTFT p50, else the workload's own "
           "time or bandwidth), so it names one by chance in one comparison in twenty; the "
           "other outcome figures are stated with their intervals and the rest counted. Each gate "
           "is judged on its own 95 % interval (at most "
           "2.5 % chance of passing when the truth sits on its threshold); \"all gates pass\" is "
           "a joint claim that needs every gate to pass, so it holds at that same level with no "
           "correction, but a claim that any one of several gates passes would need one. With "
           "fewer than two runs on a side there is no interval and gates are undecided; an "
           "undecided "
           "gate says how many runs per arm would decide it at 80 % power if the change and "
           "the spread seen so far held.";
}

// One escaper for the page and its inline SVG charts: XML's rules are HTML's here.
std::string ComparisonReport::escapeHtml(const std::string& s) {
    return SvgChart::escape(s);
}

std::string ComparisonReport::render(const std::string& format,
                                     const std::vector<ComparisonResult>& all) {
    if (format == "html")
        return html(all);
    if (format == "json") {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& in : all)
            array.push_back(nlohmann::json::parse(json(in)));
        return array.dump(2) + "\n";
    }
    std::string out;
    for (std::size_t i = 0; i < all.size(); ++i) {
        std::string one = render(format, all[i]);
        if (format == "csv" && i > 0)
            one.erase(0, one.find("\r\n") + 2); // one header
        out += one + (format == "csv" || i + 1 == all.size() ? "" : "\n");
    }
    return out;
}

std::string ComparisonReport::render(const std::string& format, const ComparisonResult& in) {
    if (format == "md")
        return markdown(in);
    if (format == "json")
        return json(in);
    if (format == "html")
        return html(in);
    if (format == "csv")
        return csv(in);
    return text(in);
}

std::string ComparisonReport::text(const ComparisonResult& in) {
    std::string out = "A: " + in.labelA + "\nB: " + in.labelB + "\n\n";
    if (!in.invalid.empty())
        out += "INVALID: a validity check failed; the gates are not judged.\n";
    for (const auto& line : in.invalid)
        out += "  " + line + "\n";
    for (const auto& line : in.warnings)
        out += "warning: " + line + "\n";
    if (!in.invalid.empty() || !in.warnings.empty())
        out += "\n";
    out += wrap("Verdict: " + ComparisonVerdict::of(in).sentence, 100);
    for (const auto& d : designLines(in))
        out += wrap(d, 100);
    out += "\n";
    char line[640];
    std::snprintf(line, sizeof line, "%-24s %14s %14s %10s %9s  %-46s %s\n", "KPI", "A", "B",
                  "change", "ratio", intervalHeader(in).c_str(), "better");
    out += line;
    for (const auto& k : in.kpis) {
        const Row r = row(k);
        std::snprintf(line, sizeof line, "%-24s %14s %14s %10s %9s  %-46s %s (%s)\n",
                      r.name.c_str(), r.a.c_str(), r.b.c_str(), r.relative.c_str(), r.ratio.c_str(),
                      r.ci.c_str(), r.better.c_str(), r.n.c_str());
        out += line;
    }
    if (!in.shares.empty())
        out += "\nBottleneck time shares (A -> B):\n";
    for (const auto& share : in.shares)
        out += "  " + share.bottleneck + ": " + shareCell(share.a) + " -> " + shareCell(share.b) +
               "\n";
    if (!in.gates.empty())
        out += "\nGates:\n";
    for (const auto& [gate, result] : in.gates)
        out += "  " + std::string(Gate::name(result.verdict)) + "  " + gate.text + "  (" +
               result.reason + ")\n";
    if (!in.excluded.empty()) {
        out += "\nNot measurements, left out:\n";
        for (const auto& line : in.excluded)
            out += "  " + line + "\n";
    }
    if (!in.checks.empty()) {
        out += "\nRun checks, resets and phases:\n";
        for (const auto& line : in.checks)
            out += "  " + line + "\n";
    }
    return out + "\n" + wrap(footnote(), 100);
}

std::string ComparisonReport::markdown(const ComparisonResult& in) {
    std::string out =
        "**A:** " + escapeMarkdown(in.labelA) + "  \n**B:** " + escapeMarkdown(in.labelB) + "\n\n";
    if (!in.invalid.empty())
        out += "**INVALID**: a validity check failed; the gates are not judged.\n\n";
    for (const auto& line : in.invalid)
        out += "- " + escapeMarkdown(line) + "\n";
    for (const auto& line : in.warnings)
        out += "- warning: " + escapeMarkdown(line) + "\n";
    if (!in.invalid.empty() || !in.warnings.empty())
        out += "\n";
    out += "**Verdict:** " + escapeMarkdown(ComparisonVerdict::of(in).sentence) + "\n\n";
    for (const auto& d : designLines(in))
        out += escapeMarkdown(d) + "\n\n";
    out += "| KPI | A | B | B - A | change | ratio | " + escapeMarkdown(intervalHeader(in)) +
           " | n (A / B) | better |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& k : in.kpis) {
        const Row r = row(k);
        out += "| " + escapeMarkdown(r.name) + " | " + r.a + " | " + r.b + " | " + r.difference +
               " | " + r.relative + " | " + r.ratio + " | " + r.ci + " | " + r.n + " | " +
               r.better + " |\n";
    }
    if (!in.shares.empty())
        out += "\n| bottleneck | A | B |\n|---|---|---|\n";
    for (const auto& share : in.shares)
        out += "| " + escapeMarkdown(share.bottleneck) + " | " + shareCell(share.a) + " | " +
               shareCell(share.b) + " |\n";
    if (!in.gates.empty())
        out += "\n| gate | verdict | evidence |\n|---|---|---|\n";
    for (const auto& [gate, result] : in.gates)
        out += "| `" + gate.text + "` | **" + Gate::name(result.verdict) + "** | " +
               escapeMarkdown(result.reason) + " |\n";
    if (!in.excluded.empty())
        out += "\nNot measurements, left out:\n\n";
    for (const auto& line : in.excluded)
        out += "- " + escapeMarkdown(line) + "\n";
    if (!in.checks.empty())
        out += "\nRun checks, resets and phases:\n\n";
    for (const auto& line : in.checks)
        out += "- " + escapeMarkdown(line) + "\n";
    return out + "\n" + escapeMarkdown(footnote()) + "\n";
}

std::string ComparisonReport::json(const ComparisonResult& in) {
    nlohmann::json kpis = nlohmann::json::array();
    for (const auto& k : in.kpis) {
        nlohmann::json j = {
            {"kpi", k.name},   {"unit", k.unit},  {"lower_is_better", k.lowerIsBetter},
            {"a", k.a},        {"b", k.b},        {"difference", k.difference()},
            {"n_a", k.countA}, {"n_b", k.countB}, {"n_of", k.sampleKind}};
        if (k.a != 0) {
            j["relative"] = k.relative();
            j["ratio"] = k.ratio();
        }
        const bool ratio = k.scale == KpiComparison::Scale::Ratio;
        j["scale"] = ratio ? "ratio" : "difference";
        j["mean"] = ratio ? "geometric" : "arithmetic";
        if (const auto r = k.relativeInterval()) {
            j["ci95_ratio"] = {k.interval->lo, k.interval->hi};
            j["ci95_change"] = {r->lo, r->hi};
        } else if (k.interval) {
            j["ci95_difference"] = {k.interval->lo, k.interval->hi};
        }
        j["runs_a"] = k.runsA;
        j["runs_b"] = k.runsB;
        j["verdict"] = KpiComparison::verdictText(k.verdict());
        j["confidence"] = k.confidence;
        if (k.looks > 0)
            j["sequential_looks"] = k.looks;
        if (k.floor)
            j["noise_floor"] = {{"half_width", *k.floor},
                                {"cv", k.floorCv.value_or(0)},
                                {"within", k.withinFloor()}};
        if (!k.note.empty())
            j["note"] = k.note;
        kpis.push_back(j);
    }
    nlohmann::json gates = nlohmann::json::array();
    for (const auto& [gate, result] : in.gates) {
        nlohmann::json g = {{"gate", gate.text},
                            {"verdict", Gate::name(result.verdict)},
                            {"evidence", result.reason}};
        if (result.runsPerArm)
            g["runs_per_arm_to_decide"] = *result.runsPerArm;
        gates.push_back(std::move(g));
    }
    nlohmann::json shares = nlohmann::json::array();
    for (const auto& share : in.shares) {
        nlohmann::json j = {{"bottleneck", share.bottleneck}};
        if (share.a)
            j["a"] = *share.a;
        if (share.b)
            j["b"] = *share.b;
        shares.push_back(j);
    }
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : in.devices)
        devices.push_back({{"kind", d.kind},
                           {"name", d.name},
                           {"attrs", nlohmann::json::parse(d.attrs, nullptr, false)}});
    return nlohmann::json{{"a", in.labelA},
                          {"b", in.labelB},
                          {"kpis", kpis},
                          {"gates", gates},
                          {"bottleneck_shares", shares},
                          {"hosts", in.hosts},
                          {"devices", devices},
                          {"excluded_runs", in.excluded},
                          {"headline", ComparisonVerdict::of(in).sentence},
                          {"valid", in.invalid.empty()},
                          {"invalid", in.invalid},
                          {"warnings", in.warnings},
                          {"run_checks", in.checks},
                          {"bytes_route", routesJson(in)},
                          {"sweep_curves", curvesJson(in)},
                          {"method", footnote()},
                          {"design", designLines(in)},
                          {"plan", Redaction::text(in.plan)},
                          {"tool_version", in.toolVersion},
                          {"generated_utc", in.generatedUtc}}
               .dump(2) +
           "\n";
}

std::string ComparisonReport::html(const ComparisonResult& in) {
    return html(std::vector<ComparisonResult>{in});
}

std::string ComparisonReport::html(const std::vector<ComparisonResult>& all) {
    return ComparisonHtml::page(all);
}

std::string ComparisonReport::csv(const ComparisonResult& in) {
    // ci95_lo/ci95_hi: of B/A on the ratio scale, of B - A (in unit) on the difference scale.
    std::string out = "kpi,unit,lower_is_better,a,b,difference,relative,ratio,scale,ci95_lo,"
                      "ci95_hi,n_a,n_b,n_of,a_label,b_label\r\n";
    for (const auto& k : in.kpis) {
        out += csvField(k.name) + "," + csvField(k.unit) + "," +
               (k.lowerIsBetter ? "true" : "false") + "," + number(k.a) + "," + number(k.b) + "," +
               number(k.difference()) + "," + (k.a != 0 ? number(k.relative()) : "") + "," +
               (k.a != 0 ? number(k.ratio()) : "") + "," +
               (k.scale == KpiComparison::Scale::Ratio ? "ratio" : "difference") + "," +
               (k.interval ? number(k.interval->lo) : "") + "," +
               (k.interval ? number(k.interval->hi) : "") + "," + std::to_string(k.countA) + "," +
               std::to_string(k.countB) + "," + csvField(k.sampleKind) + "," + csvField(in.labelA) +
               "," + csvField(in.labelB) + "\r\n";
    }
    return out;
}

} // namespace tierscope
