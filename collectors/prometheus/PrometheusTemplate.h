#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// One kind of series read from a Prometheus server (resources/prometheus-templates.toml):
// the PromQL that yields it and the tierscope metric path each result series becomes.
struct PrometheusTemplate {
    std::string exporter;
    std::string query; // with {nodes} and {window}
    std::string path;  // with {label} placeholders
    std::string unit;
    double scale = 1.0;

    std::string expandQuery(const std::string& nodesRegex, const std::string& window) const;
    // nullopt when the series lacks a label the path names.
    std::optional<std::string> expandPath(const std::map<std::string, std::string>& labels) const;
    // The labels the path names, in order ("device", "instance" for block/{device}@{instance}/...).
    std::vector<std::string> pathLabels() const;

    // Throws std::runtime_error naming the line or template that is wrong.
    static std::vector<PrometheusTemplate> parse(std::string_view toml);
    static const std::vector<PrometheusTemplate>& builtin();
    // `extra` replaces a built-in template with the same exporter and path, or adds to them.
    static std::vector<PrometheusTemplate> merged(const std::vector<PrometheusTemplate>& extra);
};

} // namespace tierscope
