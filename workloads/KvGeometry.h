#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// How many bytes of KV cache one token occupies, from a model's config.json. Standard attention
// stores K and V per layer and KV head; MLA (DeepSeek) stores one compressed latent per layer.
struct KvGeometry {
    std::string name;
    std::string source; // where the numbers come from
    int layers = 0;
    int kvHeads = 0;
    int headDim = 0;
    int dtypeBytes = 2;
    int mlaLatentDim = 0; // kv_lora_rank + qk_rope_head_dim; > 0 means MLA

    std::uint64_t bytesPerToken() const;
    std::uint64_t chunkBytes(int chunkTokens) const { return bytesPerToken() * chunkTokens; }
    // Empty when the geometry can be used; otherwise what is wrong with it.
    std::string problem() const;

    // Presets are a TOML document of [[model]] tables; throws std::runtime_error with the line
    // of a malformed entry.
    static std::vector<KvGeometry> parsePresets(std::string_view toml);
    // The presets shipped in resources/kv-geometries.toml, compiled in.
    static const std::vector<KvGeometry>& builtinPresets();
    // Case-insensitive match on the name.
    static std::optional<KvGeometry> findPreset(std::string_view name);
    // The preset of that name; throws WorkloadError (NotFound) naming every preset there is,
    // for the command line, plans and load alike.
    static KvGeometry preset(std::string_view name);
};

} // namespace tierscope
