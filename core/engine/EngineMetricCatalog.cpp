#include "core/engine/EngineMetricCatalog.h"

#include "core/engine/EngineMetricCatalogText.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <toml++/toml.h>

namespace tierscope {

namespace {

[[noreturn]] void refuse(const std::string& origin, const toml::node& at, const std::string& why) {
    throw std::invalid_argument(origin + ":" + std::to_string(at.source().begin.line) + ": " + why);
}

std::string text(const toml::table& t, const char* key, const std::string& origin, bool required) {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required)
            refuse(origin, t, std::string("no ") + key + " = \"...\"");
        return {};
    }
    const auto* s = n->as_string();
    if (!s)
        refuse(origin, *n, std::string(key) + " must be a string");
    return s->get();
}

// name{label="value",...} -> the name and the selector.
std::pair<std::string, EngineMetricCatalog::Labels>
splitSelector(const std::string& family, const std::string& origin, const toml::node& at) {
    const auto brace = family.find('{');
    if (brace == std::string::npos)
        return {family, {}};
    if (family.back() != '}')
        refuse(origin, at, "the selector of " + family + " must end in }");
    EngineMetricCatalog::Labels labels;
    std::string rest = family.substr(brace + 1, family.size() - brace - 2);
    while (!rest.empty()) {
        const auto eq = rest.find("=\"");
        const auto close = eq == std::string::npos ? eq : rest.find('"', eq + 2);
        if (close == std::string::npos)
            refuse(origin, at, "the selector of " + family + " must read label=\"value\"");
        labels.emplace_back(rest.substr(0, eq), rest.substr(eq + 2, close - eq - 2));
        rest = rest.substr(close + 1);
        if (!rest.empty() && rest.front() == ',')
            rest.erase(0, 1);
    }
    return {family.substr(0, brace), labels};
}

std::string userCatalogPath() {
    if (const char* named = std::getenv("TIERSCOPE_ENGINE_CATALOG"); named && *named)
        return named;
    std::string config;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        config = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        config = std::string(home) + "/.config";
    return config.empty() ? std::string() : config + "/tierscope/engine-metrics.toml";
}

} // namespace

std::string EngineMetricCatalog::canonical(std::string_view name) {
    std::string out(name);
    std::replace(out.begin(), out.end(), ':', '_');
    constexpr std::string_view total = "_total";
    if (out.size() > total.size() && out.ends_with(total))
        out.resize(out.size() - total.size());
    return out;
}

EngineMetricCatalog EngineMetricCatalog::parse(std::string_view toml, const std::string& origin) {
    toml::table doc;
    try {
        doc = toml::parse(toml, origin);
    } catch (const toml::parse_error& e) {
        throw std::invalid_argument(origin + ":" + std::to_string(e.source().begin.line) + ": " +
                                    std::string(e.description()));
    }
    EngineMetricCatalog c;
    if (const auto* engines = doc["engine"].as_array())
        for (const auto& node : *engines) {
            const auto* t = node.as_table();
            if (!t)
                refuse(origin, node, "[[engine]] must be a table");
            Engine e{text(*t, "id", origin, true), text(*t, "title", origin, true), {}};
            if (const auto* prefixes = t->get_as<toml::array>("prefixes"))
                for (const auto& p : *prefixes)
                    if (const auto* s = p.as_string())
                        e.prefixes.push_back(canonical(s->get()));
            if (e.prefixes.empty())
                refuse(origin, *t, "engine " + e.id + " has no prefixes = [\"...\"]");
            if (const auto* bytes = t->get("block_bytes")) {
                const auto v = bytes->value<double>();
                if (!v || !(*v > 0))
                    refuse(origin, *bytes,
                           "engine " + e.id +
                               ": block_bytes must be a positive "
                               "number of bytes");
                e.blockBytes = *v;
            }
            c.m_engines.push_back(std::move(e));
        }
    const auto* roles = doc["role"].as_array();
    if (!roles || roles->empty())
        throw std::invalid_argument(origin + ": no [[role]]");
    for (const auto& node : *roles) {
        const auto* t = node.as_table();
        if (!t)
            refuse(origin, node, "[[role]] must be a table");
        Role r;
        r.name = text(*t, "name", origin, true);
        r.type = text(*t, "type", origin, true);
        if (r.type != "counter" && r.type != "gauge" && r.type != "histogram")
            refuse(origin, *t, "role " + r.name + ": type must be counter, gauge or histogram");
        r.unit = text(*t, "unit", origin, true);
        r.title = text(*t, "title", origin, true);
        r.split = text(*t, "split", origin, false);
        r.gaugeMax = t->get_as<bool>("gauge_max") && t->get_as<bool>("gauge_max")->get();
        r.record = t->get_as<bool>("record") && t->get_as<bool>("record")->get();
        if (r.record && r.type == "histogram")
            refuse(origin, *t, "role " + r.name + ": record is for counters and gauges");
        r.addsTo = text(*t, "adds_to", origin, false);
        r.addsToSplit = text(*t, "adds_to_split", origin, false);
        if (!r.addsTo.empty() && (r.type != "counter" || (r.unit != "bytes" && r.unit != "blocks")))
            refuse(origin, *t, "role " + r.name + ": adds_to needs a counter in bytes or blocks");
        if (!r.addsTo.empty() && !c.role(r.addsTo))
            refuse(origin, *t, "role " + r.name + ": adds_to names no earlier role " + r.addsTo);
        if (c.role(r.name))
            refuse(origin, *t, "role " + r.name + " is given twice");
        const auto* families = t->get_as<toml::array>("families");
        if (!families || families->empty())
            refuse(origin, *t, "role " + r.name + " has no families = [\"...\"]");
        for (const auto& f : *families) {
            const auto* s = f.as_string();
            if (!s)
                refuse(origin, f, "role " + r.name + ": a family must be a string");
            auto [name, selector] = splitSelector(s->get(), origin, f);
            Family family{s->get(), canonical(name), std::move(selector), {}, c.m_familyCount++};
            std::size_t longest = 0;
            for (const auto& e : c.m_engines)
                for (const auto& p : e.prefixes)
                    if (family.key.starts_with(p) && p.size() > longest) {
                        longest = p.size();
                        family.engine = e.id;
                    }
            c.m_byKey[family.key].emplace_back(c.m_roles.size(), r.families.size());
            r.families.push_back(std::move(family));
        }
        c.m_roles.push_back(std::move(r));
    }
    return c;
}

const EngineMetricCatalog& EngineMetricCatalog::shipped() {
    static const EngineMetricCatalog catalog = parse(kEngineMetricsText, "engine-metrics.toml");
    return catalog;
}

const EngineMetricCatalog& EngineMetricCatalog::active() {
    static const std::unique_ptr<const EngineMetricCatalog> user =
        []() -> std::unique_ptr<const EngineMetricCatalog> {
        const std::string path = userCatalogPath();
        if (path.empty())
            return nullptr;
        std::ifstream in(path);
        if (!in) {
            if (std::getenv("TIERSCOPE_ENGINE_CATALOG"))
                throw std::invalid_argument("TIERSCOPE_ENGINE_CATALOG: cannot read " + path);
            return nullptr; // no user catalog: the shipped one
        }
        std::ostringstream body;
        body << in.rdbuf();
        return std::make_unique<const EngineMetricCatalog>(parse(body.str(), path));
    }();
    return user ? *user : shipped();
}

const EngineMetricCatalog::Role* EngineMetricCatalog::role(std::string_view name) const {
    for (const auto& r : m_roles)
        if (r.name == name)
            return &r;
    return nullptr;
}

const EngineMetricCatalog::Engine* EngineMetricCatalog::engine(std::string_view id) const {
    for (const auto& e : m_engines)
        if (e.id == id)
            return &e;
    return nullptr;
}

std::vector<std::pair<const EngineMetricCatalog::Role*, const EngineMetricCatalog::Family*>>
EngineMetricCatalog::entries(std::string_view family, const Labels& labels) const {
    std::vector<std::pair<const Role*, const Family*>> out;
    const std::string key = canonical(family);
    auto it = m_byKey.find(key);
    // An exporter may append the unit to the declared name (OpenTelemetry's Prometheus
    // exporter: lmcache_mp.lookup_hit in tokens is served as lmcache_mp_lookup_hit_tokens).
    static const std::string_view kUnits[] = {"_tokens",   "_bytes",  "_seconds",
                                              "_requests", "_chunks", "_GB_per_second"};
    for (const auto unit : kUnits)
        if (it == m_byKey.end() && key.size() > unit.size() && key.ends_with(unit))
            it = m_byKey.find(key.substr(0, key.size() - unit.size()));
    if (it == m_byKey.end())
        return out;
    for (const auto& [r, f] : it->second) {
        const Family& candidate = m_roles[r].families[f];
        const bool selected =
            std::all_of(candidate.selector.begin(), candidate.selector.end(), [&](const auto& s) {
                return std::find(labels.begin(), labels.end(), s) != labels.end();
            });
        if (selected)
            out.emplace_back(&m_roles[r], &candidate);
    }
    return out;
}

std::vector<EngineMetricCatalog::Coverage>
EngineMetricCatalog::coverage(const std::set<std::size_t>& served) const {
    std::vector<Coverage> out;
    for (const auto& e : m_engines) {
        Coverage c{e.id, {}, {}};
        bool speaks = false;
        for (const auto& r : m_roles) {
            bool listed = false, present = false;
            for (const auto& f : r.families) {
                if (f.engine != e.id)
                    continue;
                listed = true;
                present = present || served.count(f.id) > 0;
            }
            if (!listed)
                continue;
            speaks = speaks || present;
            (present ? c.served : c.missing).push_back(r.name);
        }
        if (speaks)
            out.push_back(std::move(c));
    }
    return out;
}

} // namespace tierscope
