#pragma once

#include "collectors/prometheus/PrometheusTemplate.h"
#include "core/model/SampleSink.h"

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace tierscope {

// Reads a time range from a Prometheus server through the metric templates and writes every
// series into a session: one path per series, its node (instance) kept in the labels. A
// template whose query fails is reported and the rest still imports.
class PrometheusImport {
  public:
    struct Options {
        std::string url;
        std::string nodes = ".+"; // regex on the instance label
        double stepS = 1.0;
        std::vector<PrometheusTemplate> templates = PrometheusTemplate::builtin();
        std::chrono::milliseconds timeout{30000};
    };
    struct Summary {
        std::size_t series = 0;
        std::size_t points = 0;
        std::set<std::string> nodes;
        std::vector<std::string> errors; // "exporter path: why"
        std::vector<std::string> warnings;
        // A template whose query answered but whose series mapped to nothing (a label its path
        // names is missing), or to one path several times (all but the first left out):
        // "exporter path: why".
        std::vector<std::string> unmapped;
    };
    using Progress = std::function<void(std::size_t done, std::size_t total)>;

    // The rate window the templates get: four steps, at least 5 s, as "12s".
    static std::string window(double stepS);

    // [startS, endS] in unix seconds.
    static Summary run(const Options& options, double startS, double endS, SampleSink& sink,
                       const Progress& progress = {});
};

} // namespace tierscope
