#include "collectors/engine/EngineMetricsMapper.h"

#include <algorithm>

// The KV route of an interval: where its prompt tokens came from and what the offload tiers
// moved (EngineMetricsMapper's tier figures, apart from its latencies and gauges).

namespace tierscope {

// The interval's prompt tokens by source, in vLLM's names (local_compute, local_cache_hit,
// external_kv_transfer) where vLLM counts them; from SGLang HiCache's cached tokens by source
// otherwise, or TensorRT-LLM's by cache tier: device/gpu -> local_cache_hit, host -> host_tier,
// storage/disk -> storage_tier, and the prompt tokens none of them held -> local_compute; from
// an older vLLM's prefill-computed tokens last: local_compute and "cached".
std::optional<std::map<std::string, double>>
EngineMetricsMapper::promptTokenSources(const Snapshot& now) const {
    if (auto vllm = increases(now, role("prompt_tokens_by_source")))
        return vllm;
    auto cached = increases(now, role("cached_tokens_by_source"));
    if (!cached)
        cached = increases(now, role("cached_tokens_by_tier")); // TensorRT-LLM
    const auto prompt = increase(now, role("prompt_tokens"));
    if (!prompt)
        return std::nullopt;
    if (!cached) {
        // An older vLLM: the tokens its finished requests computed, the rest cached somewhere.
        // Observed at a request's end, not its prefill: per interval the two may not pair.
        const auto* r = role("prefill_computed_tokens");
        const auto computed = r ? observed(now, *r) : std::nullopt;
        if (!computed || computed->count <= 0)
            return std::nullopt;
        return std::map<std::string, double>{{"local_compute", computed->sumS},
                                             {"cached", std::max(0.0, *prompt - computed->sumS)}};
    }
    static const std::map<std::string, std::string> kNames = {{"device", "local_cache_hit"},
                                                              {"gpu", "local_cache_hit"},
                                                              {"host", "host_tier"},
                                                              {"storage", "storage_tier"},
                                                              {"disk", "storage_tier"}};
    std::map<std::string, double> out;
    double held = 0;
    for (const auto& [source, n] : *cached) {
        const auto name = kNames.find(source);
        // Unlabelled (an SGLang before cache_source): cached somewhere, not said where.
        out[name != kNames.end() ? name->second : source.empty() ? "cached" : source] += n;
        held += n;
    }
    out["local_compute"] = std::max(0.0, *prompt - held);
    return out;
}

// A role's increases by split value, with those of the roles that add to it (catalog
// adds_to: an engine with one family per tier, such as Dynamo KVBM's onboard counters) under
// their split value. A role counted in blocks adds bytes only with its engine's block size,
// which the user gives; its blocks are recorded either way (<role>, per interval).
std::optional<std::map<std::string, double>>
EngineMetricsMapper::withAdded(std::vector<Reading>& out, const Snapshot& now,
                               const std::string& name) const {
    auto total = increases(now, role(name.c_str()));
    for (const auto& r : m_catalog.roles()) {
        if (r.addsTo != name)
            continue;
        const auto n = increase(now, &r);
        if (!n)
            continue;
        double bytes = *n;
        if (r.unit == "blocks") {
            put(out, r.name, "1", *n);
            const auto* engine = m_catalog.engine(r.families.front().engine);
            if (!engine || !engine->blockBytes)
                continue; // never a block size assumed
            bytes = *n * *engine->blockBytes;
        }
        if (!total)
            total.emplace();
        (*total)[r.addsToSplit] += bytes;
    }
    return total;
}

// Where the interval's prompt tokens came from, and what the KV offload tiers moved. Bytes
// are divided by this interval between scrapes (wall clock), never by the engine's own
// per-operation time counters.
void EngineMetricsMapper::tierFigures(std::vector<Reading>& out, const Snapshot& now) const {
    const double seconds = static_cast<double>(now.tNs - m_previous->tNs) / 1e9;
    if (const auto bySource = promptTokenSources(now)) {
        double total = 0;
        for (const auto& [source, n] : *bySource)
            total += n;
        for (const auto& [source, n] : *bySource) {
            // The interval's tokens too: summed over any span, they give its own shares.
            put(out, "prompt_tokens{source=" + sanitize(source) + "}", "1", n);
            put(out, "prompt_tokens_per_s{source=" + sanitize(source) + "}", "1/s", n / seconds);
            if (total > 0) // no prompt token in the interval: no shares, not zero shares
                put(out, "prompt_tokens_share{source=" + sanitize(source) + "}", "ratio",
                    n / total);
        }
    }
    const auto load = summed(withAdded(out, now, "kv_offload_load_bytes"));
    const auto store = summed(withAdded(out, now, "kv_offload_store_bytes"));
    put(out, "kv_offload_load_bytes", "bytes", load);
    // LMCache's remote backend (a storage server, a file system): the bytes route's engine side.
    put(out, "lmcache_remote_read_bytes", "bytes",
        increase(now, role("lmcache_remote_read_bytes")));
    if (load)
        put(out, "kv_offload_load_bytes_per_s", "bytes/s", *load / seconds);
    if (store)
        put(out, "kv_offload_store_bytes_per_s", "bytes/s", *store / seconds);
    const std::pair<const char*, const char*> perTier[] = {
        {"kv_tier_read_bytes", "kv_tier_read_bytes_per_s"},
        {"kv_tier_write_bytes", "kv_tier_write_bytes_per_s"}};
    for (const auto& [name, series] : perTier)
        if (const auto byTier = withAdded(out, now, name))
            for (const auto& [tier, bytes] : *byTier) {
                const std::string label = "{tier=" + sanitize(tier) + "}";
                put(out, std::string(name) + label, "bytes", bytes);
                put(out, std::string(series) + label, "bytes/s", bytes / seconds);
            }
    // Between instances (NIXL): the interval's bytes over its own wall-clock seconds.
    if (const auto* nixl = role("nixl_transfer_bytes"))
        if (const auto moved = observed(now, *nixl)) {
            put(out, "nixl_transfer_bytes", "bytes", moved->sumS);
            put(out, "nixl_transfer_bytes_per_s", "bytes/s", moved->sumS / seconds);
        }
    put(out, "nixl_failed_transfers", "1", increase(now, role("nixl_failed_transfers")));
    if (const auto failures = increases(now, role("kv_tier_failures")))
        for (const auto& [tier, n] : *failures)
            put(out, "kv_tier_failures{tier=" + sanitize(tier) + "}", "1", n);
}

} // namespace tierscope
