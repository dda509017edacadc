#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tierscope {

// Which /metrics families carry each role tierscope reads from an inference engine (TTFT,
// prompt tokens by source, KV tier bytes, ...), per engine, as data (resources/
// engine-metrics.toml, or the user's copy). The readers ask for roles; an engine or a renamed
// family is added in the file once, for all of them.
class EngineMetricCatalog {
  public:
    using Labels = std::vector<std::pair<std::string, std::string>>;

    struct Family {
        std::string text;   // as the catalog writes it: name{label="value"}
        std::string key;    // the name as matched (canonical())
        Labels selector;    // the labels a series must carry to be the role's
        std::string engine; // the engine whose prefix it has; empty for none
        std::size_t id = 0; // unique over the catalog: one (role, family) pair
    };
    struct Role {
        std::string name, type, unit, title;
        std::string split; // the label whose values stay apart; empty: every series added up
        bool gaugeMax = false;
        std::vector<Family> families; // in order of preference
        // A counter in bytes (or blocks, with its engine's block size) that is also part of
        // another role's figure: its increase is added to that role's, under addsToSplit as
        // the split value (an engine whose tier reads come in one family per tier).
        std::string addsTo, addsToSplit;
        // Recorded as the engine serves it, with no figure derived: a counter's increase per
        // interval, a gauge's value (engine/<endpoint>/<role>, {<split>=<value>} per split).
        bool record = false;
    };
    struct Engine {
        std::string id, title;
        std::vector<std::string> prefixes; // canonical()
        // The bytes of one KV block, which only the user knows (the model's geometry and the
        // engine's block size): its "blocks" counters become bytes only with it.
        std::optional<double> blockBytes;
    };
    // Of one engine an exposition speaks, the roles it served and those it did not.
    struct Coverage {
        std::string engine;
        std::vector<std::string> served, missing; // role names, in catalog order
    };

    // Throws std::invalid_argument naming `origin` and the line of what does not read.
    static EngineMetricCatalog parse(std::string_view toml, const std::string& origin);
    static const EngineMetricCatalog& shipped();
    // The user's catalog when there is one (TIERSCOPE_ENGINE_CATALOG, else
    // $XDG_CONFIG_HOME/tierscope/engine-metrics.toml), else the shipped one. Read once; throws
    // std::invalid_argument when the user's file does not read.
    static const EngineMetricCatalog& active();
    // A family name as matched: ':' read as '_', and without a counter's "_total".
    static std::string canonical(std::string_view name);

    const std::vector<Role>& roles() const { return m_roles; }
    const std::vector<Engine>& engines() const { return m_engines; }
    const Role* role(std::string_view name) const;
    const Engine* engine(std::string_view id) const;
    // The (role, family) entries a series of this family belongs to: `family` as served (a
    // histogram's base name, a counter with or without _total), `labels` the series'.
    std::vector<std::pair<const Role*, const Family*>> entries(std::string_view family,
                                                               const Labels& labels) const;
    std::size_t familyCount() const { return m_familyCount; }
    // Per engine with at least one family among `served` (Family::id), the roles whose first
    // served family is among them and the roles it has none of.
    std::vector<Coverage> coverage(const std::set<std::size_t>& served) const;

  private:
    std::vector<Role> m_roles;
    std::vector<Engine> m_engines;
    std::size_t m_familyCount = 0;
    // canonical family name -> (role index, family index)
    std::unordered_map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> m_byKey;
};

} // namespace tierscope
