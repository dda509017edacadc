#include "collectors/prometheus/PrometheusImport.h"

#include "collectors/prometheus/PrometheusApi.h"
#include "core/model/Reading.h"

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
        std::set<std::string> ownPaths;
        std::set<std::string> missing;
        std::size_t mapped = 0, unlabelled = 0, collided = 0;
        for (const auto& s : result.series) {
            const auto path = t.expandPath(s.labels);
            if (!path) {
                ++unlabelled;
                for (const auto& name : t.pathLabels())
                    if (const auto it = s.labels.find(name);
                        it == s.labels.end() || it->second.empty())
                        missing.insert(name);
                continue;
            }
            if (s.points.empty())
                continue; // nothing measured
            if (!ownPaths.insert(*path).second) {
                ++collided; // the path does not tell these series apart
                continue;
            }
            if (!seenPaths.insert(*path).second)
                continue; // an earlier template (the preferred source) got it first
            ++mapped;
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
        const std::string what = t.exporter + " " + t.path + ": ";
        if (mapped == 0 && unlabelled > 0) {
            std::string names;
            for (const auto& m : missing)
                names += (names.empty() ? "" : ", ") + m;
            summary.unmapped.push_back(what + std::to_string(unlabelled) +
                                       " series mapped to nothing, they lack the label(s) " +
                                       names);
        }
        if (collided > 0)
            summary.unmapped.push_back(what + std::to_string(collided) +
                                       " series left out: the path does not tell them apart from "
                                       "another series of the same query");
    }
    if (progress)
        progress(o.templates.size(), o.templates.size());
    return summary;
}

} // namespace tierscope
