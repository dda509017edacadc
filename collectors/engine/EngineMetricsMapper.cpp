#include "collectors/engine/EngineMetricsMapper.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_set>

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

// Latency histograms that become <prefix>_p50_s, _p90_s and _p99_s. The request phases (vLLM
// V1 and late V0) split TTFT into queueing and prefill, and the rest into decode.
struct LatencyFamily {
    const char* prefix;
    std::vector<std::string> families;
};
const std::vector<LatencyFamily> kLatencies = {
    {"ttft", kTtft},
    {"itl", kItl},
    {"queue_time", {"vllm:request_queue_time_seconds", "sglang:queue_time_seconds"}},
    {"prefill_time", {"vllm:request_prefill_time_seconds"}},
    {"decode_time", {"vllm:request_decode_time_seconds"}},
    {"inference_time", {"vllm:request_inference_time_seconds"}},
    {"e2e_latency", {"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds"}},
    {"lmcache_retrieve", kLmcacheRetrieve},
};

const std::vector<std::string> kCounters = {
    "vllm:prompt_tokens",        "vllm:generation_tokens",       "vllm:num_preemptions",
    "sglang:prompt_tokens",      "sglang:generation_tokens",     "vllm:prefix_cache_hits",
    "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_hits",   "vllm:gpu_prefix_cache_queries",
    "lmcache:num_hit_tokens",    "lmcache:num_requested_tokens", "lmcache:num_remote_read_bytes"};

// A series' identity within its family: its labels other than le, in a fixed order.
std::string seriesKey(const PromSample& s) {
    std::vector<std::pair<std::string, std::string>> labels;
    for (const auto& label : s.labels)
        if (label.first != "le")
            labels.push_back(label);
    std::sort(labels.begin(), labels.end());
    std::string key;
    for (const auto& [k, v] : labels)
        key += k + '\x1f' + v + '\x1e';
    return key;
}

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
    const auto slash = rest.find('/');
    const std::string host = rest.substr(0, slash);
    // Two engines behind one host:port (a gateway routing by path) are two endpoints: the path
    // is part of the id, except the default /metrics. A query or fragment may hold a token and
    // never names the engine.
    std::string path = slash == std::string::npos ? "" : rest.substr(slash);
    path = path.substr(0, path.find_first_of("?#"));
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    if (path.ends_with("/metrics"))
        path.resize(path.size() - 8);
    while (!path.empty() && path.front() == '/')
        path.erase(0, 1);
    return sanitize(path.empty() ? host : host + "_" + path);
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
        if (s.name == family + "_bucket" && scrape.typeOf(s.name) == "histogram") {
            double le = 0;
            const std::string* bound = s.label("le");
            if (!bound || !PrometheusTextParser::parseValue(*bound, le))
                continue;
            auto& buckets = now.histograms[family][seriesKey(s)];
            auto it = std::find_if(buckets.begin(), buckets.end(),
                                   [&](auto& b) { return b.first == le; });
            if (it == buckets.end())
                buckets.emplace_back(le, s.value);
            else
                it->second = s.value; // a repeated line: the last one stands
            continue;
        }
        if (scrape.typeOf(s.name) == "histogram" && std::isfinite(s.value)) {
            if (s.name == family + "_sum") {
                now.sums[family][seriesKey(s)] = s.value;
                continue;
            }
            if (s.name == family + "_count") {
                now.counts[family][seriesKey(s)] = s.value;
                continue;
            }
        }
        const std::string base = counterBase(s.name);
        if (std::find(kCounters.begin(), kCounters.end(), base) != kCounters.end() &&
            std::isfinite(s.value))
            now.counters[base][seriesKey(s)] = s.value;
    }

    std::vector<Reading> out;
    put(out, "requests_running", "1",
        sumOf(scrape, {"vllm:num_requests_running", "sglang:num_running_reqs"}));
    put(out, "requests_waiting", "1",
        sumOf(scrape, {"vllm:num_requests_waiting", "sglang:num_queue_reqs"}));
    put(out, "kv_cache_usage_ratio", "ratio",
        maxOf(scrape,
              {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}));
    // V0 only: V1 neither swaps nor keeps a CPU KV cache.
    put(out, "requests_swapped", "1", sumOf(scrape, {"vllm:num_requests_swapped"}));
    put(out, "cpu_kv_cache_usage_ratio", "ratio", maxOf(scrape, {"vllm:cpu_cache_usage_perc"}));
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
        for (const auto& latency : kLatencies)
            quantiles(out, now, latency.prefix, latency.families);
        means(out, now);
        put(out, "prompt_tokens_per_s", "1/s",
            rate(now, {"vllm:prompt_tokens", "sglang:prompt_tokens"}));
        put(out, "generation_tokens_per_s", "1/s",
            rate(now, {"vllm:generation_tokens", "sglang:generation_tokens"}));
        put(out, "preemptions_per_s", "1/s", rate(now, {"vllm:num_preemptions"}));
        put(out, "lmcache_remote_read_bytes_per_s", "bytes/s",
            rate(now, {"lmcache:num_remote_read_bytes"}));
        if (const auto speed = intervalBuckets(now, kLmcacheSpeed))
            put(out, "lmcache_retrieve_speed_p50_tokens_per_s", "1/s",
                HistogramQuantile::compute(0.5, *speed));
    }
    if (m_recordRaw) {
        raw(out, scrape);
        // Said beside the series, so a capped recording cannot pass for a complete one.
        out.push_back({{m_prefix + "raw_samples_dropped", "1", "counter", "{}"},
                       static_cast<double>(m_rawDropped)});
    }
    m_previous = std::move(now);
    return out;
}

std::optional<HistogramQuantile::Buckets>
EngineMetricsMapper::intervalBuckets(const Snapshot& now,
                                     const std::vector<std::string>& families) const {
    for (const auto& family : families) {
        const auto before = m_previous->histograms.find(family);
        const auto after = now.histograms.find(family);
        if (before != m_previous->histograms.end() && after != now.histograms.end())
            return HistogramQuantile::summedDelta(before->second, after->second);
    }
    return std::nullopt; // the first family the engine exposes wins
}

// The quantiles are histogram_quantile(q, sum by (le) (increase(..._bucket[30s]))): over the
// intervals that ended in the last kQuantileSpanNs, not over one interval, whose handful of
// requests would put p99 at a bucket edge. No request in the span: absent, never zero.
void EngineMetricsMapper::quantiles(std::vector<Reading>& out, const Snapshot& now,
                                    const std::string& prefix,
                                    const std::vector<std::string>& families) {
    const auto delta = intervalBuckets(now, families);
    auto& recent = m_recent[prefix];
    while (!recent.empty() && recent.front().first <= now.tNs - kQuantileSpanNs)
        recent.pop_front();
    if (!delta)
        return;
    recent.emplace_back(now.tNs, *delta);
    std::map<double, double> byBound;
    for (const auto& [t, buckets] : recent)
        for (const auto& [le, count] : buckets)
            byBound[le] += count;
    const HistogramQuantile::Buckets span(byBound.begin(), byBound.end());
    put(out, prefix + "_p50_s", "s", HistogramQuantile::compute(0.50, span));
    put(out, prefix + "_p90_s", "s", HistogramQuantile::compute(0.90, span));
    put(out, prefix + "_p99_s", "s", HistogramQuantile::compute(0.99, span));
    // The TTFT parts' increases themselves too: summed over any span, they give that span's own
    // quantiles.
    static const std::vector<std::string> kParts = {"ttft", "queue_time", "prefill_time",
                                                    "lmcache_retrieve"};
    if (std::find(kParts.begin(), kParts.end(), prefix) == kParts.end())
        return;
    for (const auto& [le, count] : *delta) {
        char bound[40] = "+Inf";
        if (!std::isinf(le))
            std::snprintf(bound, sizeof bound, "%.15g", le);
        put(out, prefix + "_bucket{le=" + bound + "}", "1", count);
    }
}

// Each series' increase of _sum and _count over the interval, summed as sum(increase(...)):
// a series whose count or sum went down was reset and counts from zero; one in only one of the
// scrapes counts nothing. The first family the engine exposes wins; absent when none is in both.
std::optional<EngineMetricsMapper::Observed>
EngineMetricsMapper::observed(const Snapshot& now, const std::vector<std::string>& families) const {
    for (const auto& family : families) {
        const auto c0 = m_previous->counts.find(family), c1 = now.counts.find(family);
        const auto s0 = m_previous->sums.find(family), s1 = now.sums.find(family);
        if (c0 == m_previous->counts.end() || c1 == now.counts.end() ||
            s0 == m_previous->sums.end() || s1 == now.sums.end())
            continue;
        Observed total;
        for (const auto& [key, count] : c1->second) {
            const auto count0 = c0->second.find(key);
            const auto sum1 = s1->second.find(key), sum0 = s0->second.find(key);
            if (count0 == c0->second.end() || sum1 == s1->second.end() || sum0 == s0->second.end())
                continue;
            const bool reset = count < count0->second || sum1->second < sum0->second;
            total.count += reset ? count : count - count0->second;
            total.sumS += reset ? sum1->second : sum1->second - sum0->second;
        }
        return total;
    }
    return std::nullopt;
}

// What the interval's observations add up to, per request phase: <phase>_sum_s and
// <phase>_count (zero when the engine served nothing: a real zero) and <phase>_mean_s (absent
// then). Means add up where quantiles do not: mean TTFT = mean queue + mean prefill (+ the
// front end's own time), and the KV retrieve time spread over every request is the part of
// the mean TTFT spent reading KV.
void EngineMetricsMapper::means(std::vector<Reading>& out, const Snapshot& now) const {
    std::optional<Observed> ttft, retrieve;
    for (const auto& latency : kLatencies) {
        if (std::string(latency.prefix) == "itl")
            continue; // per token, not per request
        const auto o = observed(now, latency.families);
        if (!o)
            continue;
        const std::string prefix = latency.prefix;
        put(out, prefix + "_sum_s", "s", o->sumS);
        put(out, prefix + "_count", "1", o->count);
        if (o->count > 0)
            put(out, prefix + "_mean_s", "s", o->sumS / o->count);
        if (prefix == "ttft")
            ttft = o;
        else if (prefix == "lmcache_retrieve")
            retrieve = o;
    }
    if (ttft && retrieve && ttft->count > 0)
        put(out, "kv_retrieve_per_request_s", "s", retrieve->sumS / ttft->count);
}

// The counter's increase over the interval, summed over its series, as Prometheus'
// sum(rate(...)): a series that went down was reset and counts from zero; one in only one of
// the scrapes counts nothing. Absent when no series is in both.
std::optional<double> EngineMetricsMapper::increase(const Snapshot& now,
                                                    const std::string& name) const {
    const auto before = m_previous->counters.find(name);
    const auto after = now.counters.find(name);
    if (before == m_previous->counters.end() || after == now.counters.end())
        return std::nullopt;
    std::optional<double> total;
    for (const auto& [key, value] : after->second) {
        const auto it = before->second.find(key);
        if (it != before->second.end())
            total = total.value_or(0) + (value < it->second ? value : value - it->second);
    }
    return total;
}

std::optional<double> EngineMetricsMapper::rate(const Snapshot& now,
                                                const std::vector<std::string>& names) const {
    const double seconds = static_cast<double>(now.tNs - m_previous->tNs) / 1e9;
    for (const auto& name : names)
        if (const auto d = increase(now, name))
            return *d / seconds;
    return std::nullopt;
}

std::optional<double> EngineMetricsMapper::ratio(const Snapshot& now,
                                                 const std::vector<std::string>& hits,
                                                 const std::vector<std::string>& queries) const {
    if (!m_previous)
        return std::nullopt;
    for (std::size_t i = 0; i < hits.size() && i < queries.size(); ++i) {
        const auto dh = increase(now, hits[i]);
        const auto dq = increase(now, queries[i]);
        if (!dh || !dq)
            continue;
        if (*dq <= 0)
            return std::nullopt; // nothing queried in the interval
        return *dh / *dq;
    }
    return std::nullopt;
}

void EngineMetricsMapper::raw(std::vector<Reading>& out,
                              const PrometheusTextParser::Result& scrape) {
    std::vector<Reading> mine;
    std::unordered_set<std::string> inScrape;
    std::size_t added = 0, dropped = 0;
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
        if (!m_rawSeries.count(path)) {
            if (m_rawSeries.size() >= kMaxRawSeries || added >= kMaxNewRawSeriesPerScrape) {
                ++dropped;
                continue;
            }
            m_rawSeries.insert(path);
            ++added;
        }
        // A kept series twice in one scrape: Prometheus rejects the whole scrape, and so does
        // this (the series past the caps are not stored, so they are not looked at).
        if (!inScrape.insert(path).second) {
            m_rawDropped += scrape.samples.size();
            return;
        }
        mine.push_back(
            {{path, "1", scrape.typeOf(s.name) == "counter" ? "counter" : "gauge", "{}"}, s.value});
    }
    m_rawDropped += dropped;
    out.insert(out.end(), std::make_move_iterator(mine.begin()),
               std::make_move_iterator(mine.end()));
}

} // namespace tierscope
