#include "app/commands/SweepChart.h"

#include "app/commands/ExportCommand.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/SweepCapacity.h"
#include "core/report/ComparisonCharts.h"
#include "ui/timeline/ChartRenderer.h"

#include <QGuiApplication>
#include <algorithm>

namespace tierscope {

std::optional<std::string> SweepChart::check(const Options& o, const std::vector<std::string>& kpis,
                                             std::size_t points, bool slos) {
    if (o.path.empty())
        return std::nullopt;
    if (points < 2 && !slos)
        return "--chart draws a curve: give two points or more, or an --slo";
    if (!ChartRenderer::formatOf(QString::fromStdString(o.path)))
        return "--chart FILE.svg, FILE.png or FILE.pdf (the format is the suffix)";
    if (!ExportCommand::sizeOf(o.size))
        return "--chart-size is WIDTHxHEIGHT, from 200x150 to 10000x10000";
    for (const auto* axis : {&o.x, &o.y})
        if (!axis->empty() && std::find(kpis.begin(), kpis.end(), *axis) == kpis.end()) {
            std::string list;
            for (const auto& k : kpis)
                list += (list.empty() ? "" : ", ") + k;
            return (axis == &o.x ? "--chart-x " : "--chart-y ") + *axis +
                   " is not a KPI the sweep reports: " + list;
        }
    return std::nullopt;
}

std::optional<SweepCurve> SweepChart::curveOf(Store& store, std::int64_t session,
                                              const std::string& series, std::string& why) {
    try {
        auto curve = SweepCapacity::curve(
            ComparisonBuilder::resolve(store, "session:" + std::to_string(session)));
        if (!curve) {
            why = "session " + std::to_string(session) + " holds no sweep";
            return std::nullopt;
        }
        curve->series = series;
        return curve;
    } catch (const ComparisonBuilder::UsageError& e) {
        why = e.what();
        return std::nullopt;
    }
}

std::string SweepChart::write(const SweepCurve& curve, const Options& o) {
    const auto size = ExportCommand::sizeOf(o.size);
    const auto format = ChartRenderer::formatOf(QString::fromStdString(o.path));
    if (!size || !format)
        return "--chart: " + o.path + " is not FILE.svg, FILE.png or FILE.pdf";
    const std::string svg =
        ComparisonCharts::capacity({curve}, size->first, size->second, o.x, o.y);
    // Text needs fonts, and fonts need a QGuiApplication; no display is needed for that.
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "tierscope";
    static char* argv[] = {name, nullptr};
    std::optional<QGuiApplication> app;
    if (!QGuiApplication::instance())
        app.emplace(argc, argv);
    return ChartRenderer::write(QByteArray::fromStdString(svg), QString::fromStdString(o.path),
                                *format, QSize(size->first, size->second))
        .toStdString();
}

} // namespace tierscope
