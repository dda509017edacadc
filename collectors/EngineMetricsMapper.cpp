#include "collectors/EngineMetricsMapper.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace tierscope {

namespace {

// Families the engines use for the same quantity, newest names first.
const std::vector<std::string> kTtft = {"vllm:time_to_first_token_seconds",
                                        "sglang:time_to_first_token_seconds"};
const std::vector<std::string> kItl = {
    "vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds",
    "sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"};
const std::vector<std::string> kLmcacheRetrieve = {"lmcache:time_to_retrieve"};
const std::vector<std::string> kLmcacheSpeed = {"lmcache:retrieve_speed"};
const std::vector<std::string> kCounters = {
    "vllm:prompt_tokens",        "vllm:generation_tokens",       "vllm:num_preemptions",
    "sglang:prompt_tokens",      "sglang:generation_tokens",     "vllm:prefix_cache_hits",
    "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_hits",   "vllm:gpu_prefix_cache_queries",
    "lmcache:num_hit_tokens",    "lmcache:num_requested_tokens", "lmcache:num_remote_read_bytes"};

// "foo_total" and "foo" name the same counter (0.0.4 vs OpenMetrics conventions).
std::string counterBase(const std::string& name) {
    const std::string suffix = "_total";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return name.substr(0, name.size() - suffix.size());
    return name;
}

std::optional<double> sumOf(const PrometheusTextParser::Result& scrape,
                            const std::vector<std::string>& names) {
    for (const auto& name : names) {
        double total = 0;
        bool found = false;
        for (const auto& s : scrape.samples) {
            if (s.name == name && std::isfinite(s.value)) {
                total += s.value;
                found = true;
            }
        }
        if (found)
            return total;
    }
    return std::nullopt;
}

std::optional<double> maxOf(const PrometheusTextParser::Result& scrape,
                            const std::vector<std::string>& names) {
    for (const auto& name : names) {
        std::optional<double> best;
        for (const auto& s : scrape.samples)
            if (s.name == name && std::isfinite(s.value) && (!best || s.value > *best))
                best = s.value;
        if (best)
            return best;
    }
    return std::nullopt;
}

std::string sanitize(const std::string& text) {
    std::string out;
    for (const char c : text)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':'
                   ? c
                   : '_';
    return out;
}

} // namespace

EngineMetricsMapper::EngineMetricsMapper(std::string endpointId, bool recordRaw)
    : m_prefix("engine/" + std::move(endpointId) + "/"), m_recordRaw(recordRaw) {}

std::string EngineMetricsMapper::endpointIdFromUrl(const std::string& url) {
    std::string rest = url;
    if (const auto scheme = rest.find("://"); scheme != std::string::npos)
        rest = rest.substr(scheme + 3);
    if (const auto at = rest.find('@'); at != std::string::npos && at < rest.find('/'))
        rest = rest.substr(at + 1); // never put credentials in a metric path
    rest = rest.substr(0, rest.find('/'));
    return sanitize(rest);
}

void EngineMetricsMapper::put(std::vector<Reading>& out, const std::string& what, const char* unit,
                              std::optional<double> value) const {
    if (value && std::isfinite(*value))
        out.push_back({{m_prefix + what, unit, "gauge", "{}"}, *value});
}

std::vector<Reading> EngineMetricsMapper::update(const PrometheusTextParser::Result& scrape,
                                                 std::int64_t tNs) {
    Snapshot now;
    now.tNs = tNs;
    for (const auto& s : scrape.samples) {
        const std::string family = scrape.familyOf(s.name);
        if (s.name == family + "_bucket") {
            double le = 0;
            const std::string* bound = s.label("le");
            if (!bound || !PrometheusTextParser::parseValue(*bound, le))
                continue;
            auto& buckets = now.histograms[family];
            auto it = std::find_if(buckets.begin(), buckets.end(),
                                   [&](auto& b) { return b.first == le; });
            if (it == buckets.end())
                buckets.emplace_back(le, s.value);
            else
                it->second += s.value; // sum by (le) across engines and models
            continue;
        }
        const std::string base = counterBase(s.name);
        if (std::find(kCounters.begin(), kCounters.end(), base) != kCounters.end() &&
            std::isfinite(s.value))
            now.counters[base] += s.value;
    }

    std::vector<Reading> out;
    put(out, "requests_running", "1",
        sumOf(scrape, {"vllm:num_requests_running", "sglang:num_running_reqs"}));
    put(out, "requests_waiting", "1",
        sumOf(scrape, {"vllm:num_requests_waiting", "sglang:num_queue_reqs"}));
    put(out, "kv_cache_usage_ratio", "ratio",
        maxOf(scrape,
              {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}));
    put(out, "lmcache_local_cache_usage_bytes", "bytes",
        sumOf(scrape, {"lmcache:local_cache_usage"}));
    put(out, "lmcache_remote_cache_usage_bytes", "bytes",
        sumOf(scrape, {"lmcache:remote_cache_usage"}));

    // Prefix-cache hit rate: V1 token counters over the interval, else the V0 / SGLang gauge
    // (-1 there means prefix caching is off: absent).
    auto prefixHit = ratio(now, {"vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"},
                           {"vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"});
    if (!prefixHit && !now.counters.count("vllm:prefix_cache_queries") &&
        !now.counters.count("vllm:gpu_prefix_cache_queries")) {
        prefixHit = maxOf(scrape, {"vllm:gpu_prefix_cache_hit_rate", "sglang:cache_hit_rate"});
        if (prefixHit && *prefixHit < 0)
            prefixHit.reset();
    }
    put(out, "prefix_cache_hit_rate", "ratio", prefixHit);

    auto lmcacheHit = ratio(now, {"lmcache:num_hit_tokens"}, {"lmcache:num_requested_tokens"});
    // LMCache's own gauge covers the first scrape, or exporters without the token counters.
    if (!lmcacheHit && (!m_previous || !now.counters.count("lmcache:num_requested_tokens")))
        lmcacheHit = maxOf(scrape, {"lmcache:retrieve_hit_rate"});
    put(out, "lmcache_hit_rate", "ratio", lmcacheHit);

    if (m_previous && tNs > m_previous->tNs) {
        quantiles(out, now, "ttft", kTtft);
        quantiles(out, now, "itl", kItl);
        quantiles(out, now, "lmcache_retrieve", kLmcacheRetrieve);
        put(out, "prompt_tokens_per_s", "1/s",
            rate(now, {"vllm:prompt_tokens", "sglang:prompt_tokens"}));
        put(out, "generation_tokens_per_s", "1/s",
            rate(now, {"vllm:generation_tokens", "sglang:generation_tokens"}));
        put(out, "preemptions_per_s", "1/s", rate(now, {"vllm:num_preemptions"}));
        put(out, "lmcache_remote_read_bytes_per_s", "bytes/s",
            rate(now, {"lmcache:num_remote_read_bytes"}));
        for (const auto& family : kLmcacheSpeed) {
            const auto before = m_previous->histograms.find(family);
            const auto after = now.histograms.find(family);
            if (before != m_previous->histograms.end() && after != now.histograms.end())
                put(out, "lmcache_retrieve_speed_p50_tokens_per_s", "1/s",
                    HistogramQuantile::compute(
                        0.5, HistogramQuantile::delta(before->second, after->second)));
        }
    }
    if (m_recordRaw)
        raw(out, scrape);
    m_previous = std::move(now);
    return out;
}

void EngineMetricsMapper::quantiles(std::vector<Reading>& out, const Snapshot& now,
                                    const char* prefix,
                                    const std::vector<std::string>& families) const {
    for (const auto& family : families) {
        const auto before = m_previous->histograms.find(family);
        const auto after = now.histograms.find(family);
        if (before == m_previous->histograms.end() || after == now.histograms.end())
            continue;
        const auto delta = HistogramQuantile::delta(before->second, after->second);
        const std::string p = prefix;
        put(out, p + "_p50_s", "s", HistogramQuantile::compute(0.50, delta));
        put(out, p + "_p90_s", "s", HistogramQuantile::compute(0.90, delta));
        put(out, p + "_p99_s", "s", HistogramQuantile::compute(0.99, delta));
        return; // the first family the engine exposes wins
    }
}

std::optional<double> EngineMetricsMapper::rate(const Snapshot& now,
                                                const std::vector<std::string>& names) const {
    const double seconds = static_cast<double>(now.tNs - m_previous->tNs) / 1e9;
    for (const auto& name : names) {
        const auto before = m_previous->counters.find(name);
        const auto after = now.counters.find(name);
        if (before == m_previous->counters.end() || after == now.counters.end())
            continue;
        if (after->second < before->second)
            return std::nullopt; // counter reset: this interval is unknown
        return (after->second - before->second) / seconds;
    }
    return std::nullopt;
}

std::optional<double> EngineMetricsMapper::ratio(const Snapshot& now,
                                                 const std::vector<std::string>& hits,
                                                 const std::vector<std::string>& queries) const {
    if (!m_previous)
        return std::nullopt;
    for (std::size_t i = 0; i < hits.size() && i < queries.size(); ++i) {
        const auto h0 = m_previous->counters.find(hits[i]), h1 = now.counters.find(hits[i]);
        const auto q0 = m_previous->counters.find(queries[i]), q1 = now.counters.find(queries[i]);
        if (h0 == m_previous->counters.end() || h1 == now.counters.end() ||
            q0 == m_previous->counters.end() || q1 == now.counters.end())
            continue;
        const double dq = q1->second - q0->second;
        const double dh = h1->second - h0->second;
        if (dq <= 0 || dh < 0)
            return std::nullopt; // nothing queried in the interval, or a reset
        return dh / dq;
    }
    return std::nullopt;
}

void EngineMetricsMapper::raw(std::vector<Reading>& out,
                              const PrometheusTextParser::Result& scrape) const {
    for (const auto& s : scrape.samples) {
        if (!std::isfinite(s.value))
            continue;
        std::string path = m_prefix + "raw/" + sanitize(s.name);
        if (!s.labels.empty()) {
            path += "{";
            for (std::size_t i = 0; i < s.labels.size(); ++i)
                path += (i ? "," : "") + s.labels[i].first + "=" + sanitize(s.labels[i].second);
            path += "}";
        }
        out.push_back(
            {{path, "1", scrape.typeOf(s.name) == "counter" ? "counter" : "gauge", "{}"}, s.value});
    }
}

} // namespace tierscope
