#include "app/commands/ExportCommand.h"

#include "app/commands/SessionChartExport.h"
#include "app/common/ExitCode.h"
#include "app/common/WorkspaceOpener.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/report/CsvExporter.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "ui/timeline/ChartRenderer.h"

#include <QGuiApplication>
#include <QString>
#include <ext/stdio_filebuf.h>
#include <iostream>
#include <unistd.h>

namespace tierscope {

namespace {

void addSides(CLI::App* cmd, ExportCommand::Options& o, bool required) {
    cmd->add_option("A", o.a,
                    "Baseline: run:N (or N), session:N or arm:EXPERIMENT/ARM[@SESSION|@all]")
        ->required(required);
    cmd->add_option("B", o.b, "Candidate, same forms")->required(required);
    cmd->add_option("--gate", o.gates, "A gate such as \"ttft_p50 <= -25%\" (repeatable)");
    cmd->add_option("--gate-preset", o.presets, "Named gates from resources/gates.toml, e.g. G3");
}

} // namespace

std::optional<std::pair<int, int>> ExportCommand::sizeOf(const std::string& text) {
    const auto x = text.find('x');
    try {
        const int w = std::stoi(text.substr(0, x));
        const int h = std::stoi(text.substr(x + 1));
        if (x != std::string::npos && w >= 200 && h >= 150 && w <= 10000 && h <= 10000)
            return std::pair{w, h};
    } catch (...) {
    }
    return std::nullopt;
}

namespace {

// Whole or not at all, 0600, never through a planted link.
bool writeFile(const std::string& path, const std::string& text) {
    try {
        ReportFile::write(path, text);
        return true;
    } catch (const std::exception& e) {
        std::cerr << "tierscope export report: " << e.what() << "\n";
        return false;
    }
}

int comparison(const GlobalOptions& global, const ExportCommand::Options& o) {
    const bool chart = o.what == "chart";
    const std::string name = o.chart.empty() ? "ttft-cdf" : o.chart;
    const auto kind = ComparisonCharts::parse(name);
    const bool capacity = name == ComparisonCharts::kCapacity; // drawn where A and B are sweeps
    const auto size = ExportCommand::sizeOf(o.size);
    const std::string format = !o.format.empty() ? o.format
                               : chart
                                   ? (o.out.empty() ? "svg" : o.out.substr(o.out.rfind('.') + 1))
                                   : "html";
    const auto chartFormat = ChartRenderer::formatOf(QString::fromStdString(format));
    if (chart && ((!kind && !capacity) || !size || !chartFormat)) {
        std::cerr << "tierscope export chart: "
                  << (!kind && !capacity
                          ? "--chart is ttft-cdf, kpi-bars, timelines, bottlenecks or capacity"
                      : !size ? "--size is WIDTHxHEIGHT, from 200x150 to 10000x10000"
                              : "the format is svg, png or pdf (from --format or --out)")
                  << "\n";
        return kExitUsage;
    }
    if (chart && *chartFormat != ChartRenderer::Format::Svg && o.out.empty()) {
        std::cerr << "tierscope export chart: PNG and PDF need --out FILE\n";
        return kExitUsage;
    }
    ComparisonResult in;
    ComparisonSide a, b;
    try {
        auto store = WorkspaceOpener::openExisting(global.dbPath());
        ComparisonBuilder::Options options;
        options.gates = ComparisonBuilder::gates(o.gates, o.presets);
        a = ComparisonBuilder::resolve(*store, o.a);
        b = ComparisonBuilder::resolve(*store, o.b);
        in = ComparisonBuilder::build(*store, a, b, options);
        if (!chart && format == "html")
            ComparisonCharts::attach(in, a, b);
    } catch (const ComparisonBuilder::UsageError& e) {
        std::cerr << "tierscope export " << o.what << ": " << e.what() << "\n";
        return kExitUsage;
    }
    if (chart) {
        std::string svg;
        if (capacity) {
            ComparisonCharts::attach(in, a, b, size->first, size->second);
            for (const auto& c : in.charts)
                if (c.name == ComparisonCharts::kCapacity)
                    svg = c.svg;
            if (svg.empty()) {
                std::cerr << "tierscope export chart: --chart capacity needs A and B to be "
                             "sweeps (tierscope sweep, or a plan's sweep workload)\n";
                return kExitUsage;
            }
        } else {
            svg = ComparisonCharts::render(*kind, a, b, in.kpis, size->first, size->second);
        }
        if (o.out.empty()) {
            std::cout << svg;
            return kExitOk;
        }
        // Text needs fonts, and fonts need a QGuiApplication; no display is needed for that.
        if (qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char program[] = "tierscope";
        static char* argv[] = {program, nullptr};
        QGuiApplication app(argc, argv);
        const QString error =
            ChartRenderer::write(QByteArray::fromStdString(svg), QString::fromStdString(o.out),
                                 *chartFormat, QSize(size->first, size->second), o.dpi);
        if (!error.isEmpty()) {
            std::cerr << "tierscope export chart: " << error.toStdString() << "\n";
            return kExitCannotWrite;
        }
        std::cerr << "wrote " << name << " (" << o.size << ") to " << o.out << "\n";
        return kExitOk;
    }
    in.toolVersion = kToolVersion;
    in.generatedUtc = UnitFormat::utcTime(WallClock().nowNs());
    const std::string report = ComparisonReport::render(format, in);
    if (o.out.empty()) {
        std::cout << report;
    } else if (!writeFile(o.out, report)) {
        return kExitCannotWrite;
    } else {
        std::cerr << "wrote the " << format << " report to " << o.out << "\n";
    }
    return kExitOk;
}

} // namespace

CLI::App* ExportCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand("export", "Export recorded data, comparison reports and "
                                                "charts");
    cmd->require_subcommand(1);
    auto* report = cmd->add_subcommand(
        "report", "A comparison of B against A as a report: html (self-contained, charts as "
                  "SVG, plan, hosts, devices), md, json, csv or text");
    addSides(report, options, true);
    report->add_option("--format", options.format, "html (default), md, json, csv or text")
        ->check(CLI::IsMember({"html", "md", "json", "csv", "text"}));
    report->add_option("--out", options.out, "Output file (default: standard output)");
    report->callback([&options] { options.what = "report"; });
    auto* chart = cmd->add_subcommand(
        "chart", "One chart of a comparison (A B), or a session's view or one of its charts "
                 "(--session N), as SVG, PNG or PDF");
    addSides(chart, options, false);
    chart->add_option("--session", options.session,
                      "Draw this session as the window does, off screen (needs --out)");
    chart->add_option("--chart", options.chart,
                      "Of a comparison: ttft-cdf (default), kpi-bars, timelines, bottlenecks, "
                      "capacity (of two sweeps: throughput against latency) or view (the whole "
                      "compare view as one picture: verdict, tables and every chart, needs "
                      "--out). "
                      "Of a session: view (default, every chart as the window shows them) or "
                      "a chart's id, such as load-ttft, storage or gpu-busy");
    chart->add_option("--theme", options.theme, "Of a session or the compare view: light or dark")
        ->capture_default_str()
        ->check(CLI::IsMember({"light", "dark"}));
    chart->add_option("--format", options.format, "svg, png or pdf (default: from --out)")
        ->check(CLI::IsMember({"svg", "png", "pdf"}));
    chart
        ->add_option("--size", options.size,
                     "Pixels, WIDTHxHEIGHT. A session's view is laid out in a window of this "
                     "size and holds every chart, so it is as tall as they are")
        ->capture_default_str();
    chart
        ->add_option("--dpi", options.dpi,
                     "Resolution of a PNG (and of what a PDF rasterises): 96 is one pixel per "
                     "--size pixel, 300 for print")
        ->capture_default_str()
        ->check(CLI::Range(24, 2400));
    chart->add_option("--out", options.out, "Output file (default: SVG on standard output)");
    chart->callback([&options] { options.what = "chart"; });
    auto* csv = cmd->add_subcommand("csv", "Every sample of a session as long-format CSV "
                                           "(metric,unit,time_utc,t_ns,value)");
    csv->add_option("--session", options.session, "Session ID (see `tierscope sessions`)")
        ->required();
    csv->add_option("--metric", options.metric, "Metric path glob, e.g. 'block/*/read_*'")
        ->capture_default_str();
    csv->add_option("--out", options.out, "Output file (default: standard output)");
    csv->callback([&options] { options.what = "csv"; });
    return cmd;
}

int ExportCommand::run(const GlobalOptions& global, const Options& options) {
    if (options.what == "chart" && options.session != 0) {
        if (!options.a.empty()) {
            std::cerr << "tierscope export chart: a session (--session) or a comparison (A B), "
                         "not both\n";
            return kExitUsage;
        }
        return SessionChartExport::run(global, options);
    }
    if (options.what == "chart" && options.b.empty()) {
        std::cerr << "tierscope export chart: a comparison needs A and B (or a session, "
                     "--session N)\n";
        return kExitUsage;
    }
    if (options.what == "chart" && options.chart == "view")
        return SessionChartExport::compareView(global, options);
    if (options.what == "report" || options.what == "chart")
        return comparison(global, options);
    auto store = WorkspaceOpener::openExisting(global.dbPath());
    if (!store->session(options.session))
        throw StoreError(StoreError::Code::NotFound, "no session " +
                                                         std::to_string(options.session) + " in " +
                                                         global.dbPath());
    CsvExporter::Result result;
    if (options.out.empty()) {
        result = CsvExporter::write(*store, options.session, options.metric, std::cout);
        std::cout.flush();
        if (!std::cout)
            throw StoreError(StoreError::Code::CannotWrite, "writing the export failed");
    } else {
        // Whole or not at all, and never through a link planted at either name.
        try {
            ReportFile::write(options.out, [&](int fd) {
                // The buffer closes the descriptor it is given: a duplicate, so the file stays
                // open for the writer's fsync.
                const int own = ::dup(fd);
                if (own < 0)
                    return false;
                __gnu_cxx::stdio_filebuf<char> buffer(own, std::ios::out);
                std::ostream out(&buffer);
                result = CsvExporter::write(*store, options.session, options.metric, out);
                out.flush();
                return bool(out);
            });
        } catch (const std::runtime_error& e) {
            throw StoreError(StoreError::Code::CannotWrite, e.what());
        }
    }
    if (result.metrics == 0) {
        std::cerr << "tierscope export csv: no metric of session " << options.session
                  << " matches \"" << options.metric << "\"\n";
        return kExitNotFound;
    }
    if (!options.out.empty())
        std::cerr << "wrote " << result.rows << " samples of " << result.metrics << " metrics to "
                  << options.out << "\n";
    return kExitOk;
}

} // namespace tierscope
