#include "collectors/prometheus/PrometheusTemplate.h"

#include "collectors/prometheus/PrometheusTemplatesText.h"

#include <stdexcept>
#include <toml++/toml.h>

namespace tierscope {

namespace {

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
    return text;
}

// A label value inside a metric path: '/' would split the path, so it becomes '_'.
std::string pathSafe(std::string value) {
    for (auto& c : value)
        if (c == '/')
            c = '_';
    return value;
}

} // namespace

std::string PrometheusTemplate::expandQuery(const std::string& nodesRegex,
                                            const std::string& window) const {
    // The regex goes inside a PromQL string: escape what would end or break it.
    std::string nodes;
    for (const char c : nodesRegex) {
        if (c == '"' || c == '\\')
            nodes += '\\';
        nodes += c;
    }
    return replaceAll(replaceAll(query, "{nodes}", nodes), "{window}", window);
}

std::optional<std::string>
PrometheusTemplate::expandPath(const std::map<std::string, std::string>& labels) const {
    std::string out;
    for (std::size_t i = 0; i < path.size();) {
        if (path[i] != '{') {
            out += path[i++];
            continue;
        }
        const auto close = path.find('}', i);
        if (close == std::string::npos)
            return std::nullopt;
        const auto it = labels.find(path.substr(i + 1, close - i - 1));
        if (it == labels.end() || it->second.empty())
            return std::nullopt;
        out += pathSafe(it->second);
        i = close + 1;
    }
    return out;
}

std::vector<std::string> PrometheusTemplate::pathLabels() const {
    std::vector<std::string> out;
    for (std::size_t open = path.find('{'); open != std::string::npos;
         open = path.find('{', open + 1)) {
        const auto close = path.find('}', open);
        if (close == std::string::npos)
            break;
        out.push_back(path.substr(open + 1, close - open - 1));
    }
    return out;
}

std::vector<PrometheusTemplate> PrometheusTemplate::parse(std::string_view text) {
    toml::table doc;
    try {
        doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error(std::string(e.description()) + " at line " +
                                 std::to_string(e.source().begin.line));
    }
    std::vector<PrometheusTemplate> out;
    const auto* list = doc["template"].as_array();
    if (!list)
        throw std::runtime_error("no [[template]] entries");
    for (const auto& node : *list) {
        const auto* t = node.as_table();
        if (!t)
            throw std::runtime_error("a template is not a table");
        PrometheusTemplate p;
        p.exporter = (*t)["exporter"].value_or(std::string());
        p.query = (*t)["query"].value_or(std::string());
        p.path = (*t)["path"].value_or(std::string());
        p.unit = (*t)["unit"].value_or(std::string());
        p.scale = (*t)["scale"].value_or(1.0);
        const int line = static_cast<int>(t->source().begin.line);
        if (p.query.empty() || p.path.empty() || p.unit.empty())
            throw std::runtime_error("the template at line " + std::to_string(line) +
                                     " needs query, path and unit");
        out.push_back(std::move(p));
    }
    return out;
}

const std::vector<PrometheusTemplate>& PrometheusTemplate::builtin() {
    static const auto templates = parse(kPrometheusTemplatesText);
    return templates;
}

std::vector<PrometheusTemplate>
PrometheusTemplate::merged(const std::vector<PrometheusTemplate>& extra) {
    auto out = builtin();
    for (const auto& e : extra) {
        bool replaced = false;
        for (auto& t : out)
            if (t.exporter == e.exporter && t.path == e.path) {
                t = e;
                replaced = true;
            }
        if (!replaced)
            out.push_back(e);
    }
    return out;
}

} // namespace tierscope
