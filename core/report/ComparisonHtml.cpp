#include "core/report/ComparisonHtml.h"

#include "core/compare/ComparisonVerdict.h"
#include "core/report/ComparisonReport.h"
#include "core/util/Redaction.h"
#include "core/util/UnitFormat.h"

#include <cstdio>

namespace tierscope {

namespace {

std::string escapeHtml(const std::string& s) {
    return ComparisonReport::escapeHtml(s);
}

std::string formattedValue(const char* format, double a) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, format, a);
    return buffer;
}

std::string perRun(const std::vector<double>& values, const std::string& unit) {
    std::string out;
    for (const double v : values)
        out += (out.empty() ? "" : ", ") + UnitFormat::kpi(v, unit);
    return out;
}

// The layers side by side, one row per measured run (docs/guide/bottlenecks.md, "The bytes
// route"): what the engine read beside what crossed the device, the network and PCIe.
std::string routeTable(const ComparisonResult& in) {
    if (in.routes.empty())
        return {};
    auto bytes = [](const std::optional<double>& v) {
        return v ? UnitFormat::bytes(*v) : std::string("absent");
    };
    std::string out = "<h2>Bytes route</h2>\n<table><tr><th>run</th><th>engine tier</th>"
                      "<th>device</th><th>device read</th><th>below it</th><th>NIC rx</th>"
                      "<th>RDMA rx</th><th>engine GPU load</th><th>GPU PCIe rx</th>"
                      "<th>confounds</th></tr>\n";
    for (const auto& [side, run, r] : in.routes) {
        std::string device = r.device.empty() ? "unknown: " + r.deviceWhy : r.device;
        std::string read = bytes(r.deviceBytes);
        if (r.deviceBytes && r.engineTierBytes && *r.engineTierBytes > 0)
            read +=
                " (" + formattedValue("%.0f %%", *r.deviceBytes / *r.engineTierBytes * 100) + ")";
        std::string below, confounds;
        for (const auto& [name, b] : r.belowBytes)
            below += (below.empty() ? "" : ", ") + name + " " + UnitFormat::bytes(b);
        for (const auto& c : r.confounds())
            confounds += (confounds.empty() ? "" : "; ") + c.id + ": " + c.text;
        out += "<tr><td>" + std::string(1, side) + ": run " + std::to_string(run) + "</td><td>" +
               escapeHtml(bytes(r.engineTierBytes)) + "</td><td>" + escapeHtml(device) +
               "</td><td>" + read + "</td><td>" + escapeHtml(below) + "</td><td>" +
               bytes(r.nicBytes) + "</td><td>" + bytes(r.rdmaBytes) + "</td><td>" +
               bytes(r.engineGpuLoadBytes) + "</td><td>" + bytes(r.gpuRxBytes) + "</td><td>" +
               escapeHtml(confounds.empty() ? "none" : confounds) + "</td></tr>\n";
    }
    return out + "</table>\n";
}

} // namespace

std::string ComparisonHtml::page(const std::vector<ComparisonResult>& all) {
    std::string out =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tierscope comparison</title>"
        "<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#eee}"
        "td:first-child{text-align:left}.pass{color:#070;font-weight:bold}.fail{color:#b00;"
        "font-weight:bold}.undecided{color:#a60;font-weight:bold}.chart{margin:1em 0}"
        "pre{background:#f6f6f6;padding:8px;overflow:auto}</style></head><body>\n";
    for (std::size_t i = 0; i < all.size(); ++i)
        out += section(all[i], i + 1 == all.size());
    if (!all.empty())
        out += "<p><small>" + escapeHtml(ComparisonReport::footnote()) +
               "</small></p>\n<p><small>tierscope " + escapeHtml(all.back().toolVersion) + ", " +
               escapeHtml(all.back().generatedUtc) + "</small></p>\n";
    return out + "</body></html>\n";
}

// The answer first: the verdict sentence and the gates it was judged by, then the charts; the
// tables and the evidence they come from follow for whoever checks them. The plan, hosts and
// devices only once per page (they are the same for every comparison of an experiment).
std::string ComparisonHtml::section(const ComparisonResult& in, bool provenance) {
    std::string out = "<h1>A/B comparison</h1>\n";
    out += "<p class=\"headline\"><b>Verdict:</b> " +
           escapeHtml(ComparisonVerdict::of(in).sentence) + "</p>\n";
    if (!in.gates.empty()) {
        out += "<h2>Gates</h2>\n<table><tr><th>gate</th><th>verdict</th><th>evidence</th></tr>\n";
        for (const auto& [gate, result] : in.gates) {
            const std::string verdict = Gate::name(result.verdict);
            out += "<tr><td>" + escapeHtml(gate.text) + "</td><td class=\"" + verdict + "\">" +
                   verdict + "</td><td>" + escapeHtml(result.reason) + "</td></tr>\n";
        }
        out += "</table>\n";
    }
    if (!in.invalid.empty())
        out +=
            "<p class=\"fail\">INVALID: a validity check failed; the gates are not judged.</p>\n";
    if (!in.invalid.empty() || !in.warnings.empty()) {
        out += "<ul>\n";
        for (const auto& line : in.invalid)
            out += "<li class=\"fail\">" + escapeHtml(line) + "</li>\n";
        for (const auto& line : in.warnings)
            out += "<li>warning: " + escapeHtml(line) + "</li>\n";
        out += "</ul>\n";
    }
    out += "<p><b>A:</b> " + escapeHtml(in.labelA) + "<br><b>B:</b> " + escapeHtml(in.labelB) +
           "</p>\n";
    for (const auto& d : ComparisonReport::designLines(in))
        out += "<p>" + escapeHtml(d) + "</p>\n";
    for (const auto& chart : in.charts)
        out += "<h2>" + escapeHtml(chart.title) + "</h2>\n<div class=\"chart\" id=\"" +
               escapeHtml(chart.name) + "\">\n" + chart.svg + "</div>\n";
    out += "<h2>KPIs</h2>\n<table><tr><th>KPI</th><th>A</th><th>B</th><th>B - A</th><th>change</th>"
           "<th>ratio</th><th>" +
           escapeHtml(ComparisonReport::intervalHeader(in)) +
           "</th><th>n (A / B)</th><th>better</th></tr>\n";
    for (const auto& k : in.kpis) {
        out += "<tr>";
        for (const auto& c : ComparisonReport::rowCells(k))
            out += "<td>" + escapeHtml(c) + "</td>";
        out += "</tr>\n";
    }
    out += "</table>\n";
    out += "<details><summary>Per-run values</summary>\n<table><tr><th>KPI</th><th>A runs</th>"
           "<th>B runs</th></tr>\n";
    for (const auto& k : in.kpis)
        out += "<tr><td>" + escapeHtml(k.name) + "</td><td>" + escapeHtml(perRun(k.runsA, k.unit)) +
               "</td><td>" + escapeHtml(perRun(k.runsB, k.unit)) + "</td></tr>\n";
    out += "</table></details>\n";
    if (!in.excluded.empty()) {
        out += "<p>Not measurements, left out:</p>\n<ul>\n";
        for (const auto& line : in.excluded)
            out += "<li>" + escapeHtml(line) + "</li>\n";
        out += "</ul>\n";
    }
    if (!in.shares.empty()) {
        out += "<h2>Bottleneck time shares</h2>\n<table><tr><th>bottleneck</th><th>A</th>"
               "<th>B</th></tr>\n";
        for (const auto& share : in.shares)
            out += "<tr><td>" + escapeHtml(share.bottleneck) + "</td><td>" +
                   ComparisonReport::shareCell(share.a) + "</td><td>" +
                   ComparisonReport::shareCell(share.b) + "</td></tr>\n";
        out += "</table>\n";
    }
    out += routeTable(in);
    if (!in.checks.empty()) {
        out += "<details><summary>Run checks, resets and phases</summary><ul>\n";
        for (const auto& line : in.checks)
            out += "<li>" + escapeHtml(line) + "</li>\n";
        out += "</ul></details>\n";
    }
    if (!provenance)
        return out;
    if (!in.plan.empty())
        out += "<h2>Plan</h2>\n<pre>" + escapeHtml(Redaction::text(in.plan)) + "</pre>\n";
    if (!in.hosts.empty()) {
        out += "<h2>Hosts</h2>\n<ul>\n";
        for (const auto& h : in.hosts)
            out += "<li>" + escapeHtml(h) + "</li>\n";
        out += "</ul>\n";
    }
    if (!in.devices.empty()) {
        out += "<h2>Devices</h2>\n<table><tr><th>kind</th><th>name</th><th>attributes</th></tr>\n";
        for (const auto& d : in.devices)
            out += "<tr><td>" + escapeHtml(d.kind) + "</td><td>" + escapeHtml(d.name) +
                   "</td><td style=\"text-align:left\"><code>" + escapeHtml(d.attrs) +
                   "</code></td></tr>\n";
        out += "</table>\n";
    }
    return out;
}

} // namespace tierscope
