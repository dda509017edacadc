#include "collectors/PrometheusImport.h"

#include "collectors/PrometheusApi.h"
#include "core/Reading.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tierscope {

std::string PrometheusImport::window(double stepS) {
    return std::to_string(static_cast<long>(std::ceil(std::max(5.0, 4 * stepS)))) + "s";
}

PrometheusImport::Summary PrometheusImport::run(const Options& o, double startS, double endS,
                                                SampleSink& sink, const Progress& progress) {
    Summary summary;
    const PrometheusApi api(o.url, o.timeout);
    const std::string rateWindow = window(o.stepS);
    std::set<std::string> seenPaths;
    for (std::size_t i = 0; i < o.templates.size(); ++i) {
        const auto& t = o.templates[i];
        if (progress)
            progress(i, o.templates.size());
        const auto result =
            api.queryRange(t.expandQuery(o.nodes, rateWindow), startS, endS, o.stepS);
        if (!result.error.empty())
            summary.errors.push_back(t.exporter + " " + t.path + ": " + result.error);
        summary.warnings.insert(summary.warnings.end(), result.warnings.begin(),
                                result.warnings.end());
        for (const auto& s : result.series) {
            const auto path = t.expandPath(s.labels);
            if (!path || s.points.empty() || !seenPaths.insert(*path).second)
                continue; // a label missing, nothing measured, or another exporter got it first
            nlohmann::json labels = nlohmann::json::object();
            for (const auto& [k, v] : s.labels)
                if (k != "__name__")
                    labels[k] = v;
            labels["source"] = t.exporter;
            const auto node = s.labels.find("instance");
            if (node != s.labels.end()) {
                labels["node"] = node->second;
                summary.nodes.insert(node->second);
            }
            const MetricDescriptor metric{*path, t.unit, "gauge", labels.dump()};
            for (const auto& [time, value] : s.points) {
                const Reading reading{metric, value * t.scale};
                sink.write(static_cast<std::int64_t>(std::llround(time * 1e9)), {&reading, 1});
            }
            ++summary.series;
            summary.points += s.points.size();
        }
    }
    if (progress)
        progress(o.templates.size(), o.templates.size());
    return summary;
}

} // namespace tierscope
