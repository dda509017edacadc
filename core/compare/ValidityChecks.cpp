#include "core/compare/ValidityChecks.h"

#include "core/engine/EngineMetricCatalog.h"
#include "core/util/UnitFormat.h"

#include <cstdio>

namespace tierscope {

namespace {

nlohmann::json check(const char* name, const char* status, const std::string& detail) {
    return {{"check", name}, {"status", status}, {"detail", detail}};
}

std::string bytes(double b) {
    return UnitFormat::bytes(b);
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100);
    return text;
}

double value(const std::map<std::string, double>& m, const char* name) {
    const auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
}

// A role as messages name it ("LMCache hit tokens"), from the engine metric catalog.
std::string title(const char* role) {
    const auto* r = EngineMetricCatalog::active().role(role);
    return r ? r->title : role;
}

} // namespace

nlohmann::json ValidityChecks::storageEvidence(const std::optional<std::string>& device,
                                               const std::string& deviceWhy,
                                               std::optional<double> deviceReadBytes,
                                               std::optional<double> impliedBytes) {
    if (!device || !deviceReadBytes)
        return check("storage_evidence", "warn", "not checked: " + deviceWhy);
    if (!impliedBytes || *impliedBytes <= 0) {
        auto c = check("storage_evidence", "warn",
                       "not checked: the workload implies no KV size (give the workload a "
                       "geometry or kv_bytes_per_token); " +
                           *device + " read " + bytes(*deviceReadBytes));
        c["device"] = *device;
        c["device_read_bytes"] = *deviceReadBytes;
        return c;
    }
    const double share = *deviceReadBytes / *impliedBytes;
    const char* status = share >= kPassShare ? "pass" : share >= kFailShare ? "warn" : "fail";
    std::string detail = *device + " read " + bytes(*deviceReadBytes) + " in the measured phase, " +
                         percent(share) + " of the " + bytes(*impliedBytes) +
                         " of KV the workload implies";
    if (share < kFailShare)
        detail += ": far below, so the KV did not come from this storage (a CPU tier, the page "
                  "cache or a recompute served it)";
    auto c = check("storage_evidence", status, detail);
    c["device"] = *device;
    c["device_read_bytes"] = *deviceReadBytes;
    c["implied_kv_bytes"] = *impliedBytes;
    c["share"] = share;
    return c;
}

namespace {

std::string tokens(double n) {
    return UnitFormat::count(static_cast<std::int64_t>(n));
}

// Where the engine's own reads are known and the KV is on a block device, they are the
// evidence: the device's count every process on the machine (a drop_caches makes them all
// read again).
nlohmann::json judgedReads(const ValidityChecks::Reads& r, double implied,
                           const ValidityChecks::CacheExpectation& expect) {
    const bool engine = r.engineBytes.has_value();
    const double read = engine ? *r.engineBytes : *r.deviceBytes;
    const double share = read / implied;
    std::string who = engine
                          ? "the engine's " + std::to_string(r.engineProcesses) +
                                (r.engineProcesses == 1 ? " process" : " processes") + " read " +
                                bytes(read) + " from storage (read_bytes)"
                          : *r.device + " read " + bytes(read) + " (machine-wide: every process)";
    std::string of =
        ", " + percent(share) + " of the " + bytes(implied) + " of KV the workload implies";
    const char* status = "pass";
    std::string detail;
    if (expect.recompute) {
        status = share < ValidityChecks::kFailShare ? "pass" : "warn";
        detail = "recompute baseline: " + who + " in the measured phase" + of +
                 (share < ValidityChecks::kFailShare
                      ? ", as a recompute reads no KV"
                      : ": more than a recompute reads, so something restored KV or read "
                        "beside it");
    } else {
        status = share >= ValidityChecks::kPassShare   ? "pass"
                 : share >= ValidityChecks::kFailShare ? "warn"
                                                       : "fail";
        detail = who + " in the measured phase" + of;
        if (share < ValidityChecks::kFailShare)
            detail += ": far below, so the KV did not come from this storage (a CPU tier, the "
                      "page cache or a recompute served it)";
    }
    if (engine && r.device && r.deviceBytes)
        detail += "; machine-wide, " + *r.device + " read " + bytes(*r.deviceBytes);
    auto c = check("storage_evidence", status, detail);
    if (r.device)
        c["device"] = *r.device;
    if (r.deviceBytes)
        c["device_read_bytes"] = *r.deviceBytes;
    if (engine) {
        c["engine_read_bytes"] = *r.engineBytes;
        c["engine_processes"] = r.engineProcesses;
    }
    c["measured_by"] = engine ? "engine" : "device";
    c["implied_kv_bytes"] = implied;
    c["share"] = share;
    if (expect.recompute)
        c["expected"] = "recompute";
    return c;
}

// A declared recompute baseline: no token may come from a KV tier; the GPU's own prefix cache
// (a question after another on the same document) is not a tier.
nlohmann::json recomputeEvidence(const std::map<std::string, double>& d) {
    const double tierHits = value(d, "lmcache_hit_tokens") + value(d, "external_prefix_cache_hits");
    const double tierBytes = value(d, "lmcache_remote_read_bytes") + value(d, "kv_tier_read_bytes");
    std::string numbers;
    if (d.count("prefix_cache_queries"))
        numbers = "; the GPU prefix cache hit " + tokens(value(d, "prefix_cache_hits")) + " of " +
                  tokens(value(d, "prefix_cache_queries")) + " tokens looked up";
    const bool restored = tierHits > 0 || tierBytes > 0;
    auto c = check("cache_evidence", restored ? "fail" : "pass",
                   restored ? "declared a recompute baseline (cache = \"recompute\"), yet its KV "
                              "tier served " +
                                  tokens(tierHits) + " tokens (" + bytes(tierBytes) +
                                  " read): it restored, so it is no baseline" + numbers
                            : "recompute baseline as declared: no KV tier hit" + numbers);
    c["expected"] = "recompute";
    c["tier_hit_tokens"] = tierHits;
    c["tier_read_bytes"] = tierBytes;
    return c;
}

} // namespace

nlohmann::json ValidityChecks::storageEvidence(const Reads& r, std::optional<double> impliedBytes,
                                               const CacheExpectation& expect) {
    // A recompute baseline is judged on its engine's reads wherever they are known: it should
    // read no KV from anywhere, whatever its path.
    const bool known =
        (r.device && (r.engineBytes || r.deviceBytes)) || (expect.recompute && r.engineBytes);
    if (known && impliedBytes && *impliedBytes > 0)
        return judgedReads(r, *impliedBytes, expect);
    auto c = storageEvidence(r.device, r.deviceWhy, r.deviceBytes, impliedBytes);
    if (r.engineBytes) {
        c["engine_read_bytes"] = *r.engineBytes;
        c["detail"] = c["detail"].get<std::string>() + "; the engine's processes read " +
                      bytes(*r.engineBytes) + " from storage (read_bytes)";
    }
    return c;
}

nlohmann::json
ValidityChecks::cacheEvidence(const std::optional<std::map<std::string, double>>& counters,
                              std::optional<double> deviceReadBytes,
                              std::optional<double> impliedBytes, const CacheExpectation& expect) {
    if (!counters)
        return check("cache_evidence", "warn", "not checked: the engine's /metrics did not answer");
    const auto& d = *counters;
    if (expect.recompute)
        return recomputeEvidence(d);
    // LMCache's own hit tokens where it runs, else the engine's prefix cache (catalog roles).
    const bool lmcache = d.count("lmcache_hit_tokens") > 0;
    const bool vllm = d.count("prefix_cache_hits") > 0;
    if (!lmcache && !vllm)
        return check("cache_evidence", "warn",
                     "not checked: the engine reports neither " + title("lmcache_hit_tokens") +
                         " nor " + title("prefix_cache_hits"));
    const char* hitRole = lmcache ? "lmcache_hit_tokens" : "prefix_cache_hits";
    const double hits = value(d, hitRole);
    const double requested =
        value(d, lmcache ? "lmcache_requested_tokens" : "prefix_cache_queries");
    const double retrieves = value(d, "lmcache_retrieve_requests");
    const double recomputed = value(d, "kv_recomputed_tokens");
    const double remoteBytes = value(d, "lmcache_remote_read_bytes");
    std::string numbers = UnitFormat::count(static_cast<std::int64_t>(hits)) + " " +
                          title(hitRole) + " of " +
                          UnitFormat::count(static_cast<std::int64_t>(requested)) + " requested";
    if (lmcache)
        numbers += ", " + UnitFormat::count(static_cast<std::int64_t>(retrieves)) + " retrieves, " +
                   bytes(remoteBytes) + " read by LMCache";
    const char* status = "pass";
    std::string detail = numbers;
    if (recomputed > 0) {
        status = "fail";
        detail = "recompute fallback: " + UnitFormat::count(static_cast<std::int64_t>(recomputed)) +
                 " cached tokens were recomputed instead of read; " + numbers;
    } else if (hits <= 0) {
        status = "fail";
        detail = "no cache hit tokens in the measured phase, so its prefixes were recomputed, not "
                 "restored; " +
                 numbers;
    } else if (deviceReadBytes && impliedBytes && *impliedBytes > 0 &&
               *deviceReadBytes < kFailShare * *impliedBytes &&
               remoteBytes < kFailShare * *impliedBytes) {
        status = "warn";
        detail = "hits with no storage reads (the device read " + bytes(*deviceReadBytes) + " of " +
                 bytes(*impliedBytes) + " of KV): served from memory or recomputed; " + numbers;
    }
    // A handful of hit tokens is not a restore: a recompute arm once passed on 0.8 %.
    const std::optional<double> share =
        requested > 0 ? std::optional<double>(hits / requested) : std::nullopt;
    if (std::string(status) == "pass" && share && *share < expect.minHitShare) {
        status = "fail";
        detail = "only " + percent(*share) + " of the tokens looked up hit (min_hit_share " +
                 percent(expect.minHitShare) + "), so most prefixes were recomputed; " + numbers;
    }
    auto c = check("cache_evidence", status, detail);
    c["hit_tokens"] = hits;
    c["requested_tokens"] = requested;
    if (lmcache) {
        c["retrieves"] = retrieves;
        c["lmcache_read_bytes"] = remoteBytes;
    }
    if (share)
        c["hit_share"] = *share;
    c["min_hit_share"] = expect.minHitShare;
    c["recomputed_tokens"] = recomputed;
    c["recompute_fallback"] = recomputed > 0;
    return c;
}

nlohmann::json ValidityChecks::pageCache(std::optional<double> growthBytes,
                                         std::optional<double> deviceReadBytes,
                                         std::optional<double> impliedBytes,
                                         std::optional<double> storeReadBytes) {
    if (!growthBytes || !deviceReadBytes || !impliedBytes || *impliedBytes <= 0)
        return check("page_cache", "warn",
                     "not checked: needs the page cache, the device's reads and the KV size");
    const bool grew = *growthBytes >= kPassShare * *impliedBytes;
    const bool noReads = *deviceReadBytes < kFailShare * *impliedBytes &&
                         (!storeReadBytes || *storeReadBytes >= kPassShare * *impliedBytes);
    std::string detail = "page cache " +
                         std::string(*growthBytes >= 0 ? "grew by " : "shrank by ") +
                         bytes(*growthBytes >= 0 ? *growthBytes : -*growthBytes) +
                         " over the run, the device read " + bytes(*deviceReadBytes) +
                         (storeReadBytes ? ", the KV store " + bytes(*storeReadBytes) : "") +
                         ", KV " + bytes(*impliedBytes);
    if (grew && noReads)
        detail = "reads served from the page cache: " + detail +
                 " (drop_caches = true between phases, or O_DIRECT in the KV store)";
    auto c = check("page_cache", grew && noReads ? "fail" : "pass", detail);
    c["page_cache_growth_bytes"] = *growthBytes;
    c["device_read_bytes"] = *deviceReadBytes;
    c["implied_kv_bytes"] = *impliedBytes;
    if (storeReadBytes)
        c["store_read_bytes"] = *storeReadBytes;
    return c;
}

nlohmann::json ValidityChecks::errors(long failed, long issued, std::optional<double> limit) {
    if (issued <= 0)
        return check("errors", "fail", "no request was issued");
    const double rate = static_cast<double>(failed) / static_cast<double>(issued);
    std::string detail = UnitFormat::count(failed) + " of " + UnitFormat::count(issued) +
                         " requests failed (" + percent(rate) + ")";
    const char* status = "pass";
    if (limit) {
        detail += ", limit " + percent(*limit);
        status = rate > *limit ? "fail" : "pass";
    } else if (failed > 0) {
        status = "warn";
        detail += "; the plan sets no max_failure_rate";
    }
    auto c = check("errors", status, detail);
    c["failed"] = failed;
    c["issued"] = issued;
    c["failure_rate"] = rate;
    if (limit)
        c["limit"] = *limit;
    return c;
}

} // namespace tierscope
