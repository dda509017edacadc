#include "workloads/KvGeometry.h"

#include "workloads/KvGeometryPresetsText.h"
#include "workloads/WorkloadError.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <toml++/toml.h>

namespace tierscope {

std::uint64_t KvGeometry::bytesPerToken() const {
    const auto layerCount = static_cast<std::uint64_t>(layers);
    if (mlaLatentDim > 0)
        return layerCount * static_cast<std::uint64_t>(mlaLatentDim) * dtypeBytes;
    return layerCount * static_cast<std::uint64_t>(kvHeads) * headDim * 2 * dtypeBytes;
}

std::string KvGeometry::problem() const {
    // Far above any published model (DeepSeek-V3: 61 layers, latent 576; Llama 3.1 405B: 126
    // layers, 8 KV heads of 128), and low enough that bytes per token cannot overflow.
    if (layers <= 0 || layers > 4096)
        return "layers must be 1 to 4096";
    if (dtypeBytes <= 0 || dtypeBytes > 8)
        return "dtype bytes must be 1 to 8";
    if (mlaLatentDim < 0 || mlaLatentDim > 1 << 16)
        return "the MLA latent size must be 0 to 65536";
    if (mlaLatentDim > 0)
        return {};
    if (kvHeads <= 0 || headDim <= 0)
        return "KV heads and head dim must be positive (or give an MLA latent size)";
    if (kvHeads > 4096 || headDim > 1 << 16)
        return "KV heads must be at most 4096 and head dim at most 65536";
    return {};
}

std::vector<KvGeometry> KvGeometry::parsePresets(std::string_view text) {
    toml::table doc;
    try {
        doc = toml::parse(text);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error("KV geometry presets: " + std::string(e.description()) +
                                 " at line " + std::to_string(e.source().begin.line));
    }
    std::vector<KvGeometry> out;
    const auto* models = doc["model"].as_array();
    if (!models)
        throw std::runtime_error("KV geometry presets: no [[model]] tables");
    for (const auto& node : *models) {
        const auto* t = node.as_table();
        const int line = static_cast<int>(node.source().begin.line);
        if (!t)
            throw std::runtime_error("KV geometry presets: model at line " + std::to_string(line) +
                                     " is not a table");
        KvGeometry g;
        g.name = (*t)["name"].value_or(std::string());
        g.source = (*t)["source"].value_or(std::string());
        g.layers = (*t)["layers"].value_or(0);
        g.kvHeads = (*t)["kv_heads"].value_or(0);
        g.headDim = (*t)["head_dim"].value_or(0);
        g.dtypeBytes = (*t)["dtype_bytes"].value_or(2);
        g.mlaLatentDim = (*t)["mla_latent_dim"].value_or(0);
        std::string problem = g.name.empty() ? "name is missing" : g.problem();
        if (!problem.empty())
            throw std::runtime_error("KV geometry presets: model at line " + std::to_string(line) +
                                     ": " + problem);
        out.push_back(std::move(g));
    }
    return out;
}

const std::vector<KvGeometry>& KvGeometry::builtinPresets() {
    static const std::vector<KvGeometry> presets = parsePresets(kKvGeometryPresetsText);
    return presets;
}

std::optional<KvGeometry> KvGeometry::findPreset(std::string_view name) {
    auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    for (const auto& g : builtinPresets())
        if (lower(g.name) == lower(name))
            return g;
    return std::nullopt;
}

KvGeometry KvGeometry::preset(std::string_view name) {
    if (auto g = findPreset(name))
        return *g;
    std::string names;
    for (const auto& g : builtinPresets())
        names += (names.empty() ? "" : ", ") + g.name;
    throw WorkloadError(WorkloadError::Kind::NotFound,
                        "no geometry preset \"" + std::string(name) + "\"; presets: " + names);
}

} // namespace tierscope
