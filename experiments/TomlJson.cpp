#include "experiments/TomlJson.h"

namespace tierscope {

std::optional<nlohmann::json> TomlJson::convert(const toml::node& node) {
    if (const auto* t = node.as_table()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [k, v] : *t) {
            auto value = convert(v);
            if (!value)
                return std::nullopt;
            out[std::string(k.str())] = std::move(*value);
        }
        return out;
    }
    if (const auto* a = node.as_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : *a) {
            auto value = convert(v);
            if (!value)
                return std::nullopt;
            out.push_back(std::move(*value));
        }
        return out;
    }
    if (const auto* i = node.as_integer())
        return nlohmann::json(i->get());
    if (const auto* f = node.as_floating_point())
        return nlohmann::json(f->get());
    if (const auto* b = node.as_boolean())
        return nlohmann::json(b->get());
    if (const auto* s = node.as_string())
        return nlohmann::json(s->get());
    return std::nullopt;
}

} // namespace tierscope
