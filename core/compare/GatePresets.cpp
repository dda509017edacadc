#include "core/compare/GatePresets.h"

#include "core/compare/GatePresetsText.h"

#include <stdexcept>
#include <toml++/toml.h>

namespace tierscope {

std::map<std::string, std::vector<std::string>> GatePresets::parse(std::string_view text) {
    toml::table doc;
    try {
        doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error("gate presets: " + std::string(e.description()) + " at line " +
                                 std::to_string(e.source().begin.line));
    }
    std::map<std::string, std::vector<std::string>> out;
    for (const auto& [name, node] : doc) {
        const auto* gates = node.as_table() ? (*node.as_table())["gates"].as_array() : nullptr;
        if (!gates)
            throw std::runtime_error("gate presets: [" + std::string(name.str()) +
                                     "] has no gates = [...]");
        for (const auto& g : *gates)
            if (const auto* s = g.as_string())
                out[std::string(name.str())].push_back(s->get());
    }
    return out;
}

const std::map<std::string, std::vector<std::string>>& GatePresets::builtin() {
    static const auto presets = parse(kGatePresetsText);
    return presets;
}

} // namespace tierscope
