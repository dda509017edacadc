#include "collectors/engine/EngineMetricsMapper.h"

#include "core/stats/TtftBreakdown.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_set>

namespace tierscope {

namespace {

// The request phases whose bucket increases are kept too: the parts of the TTFT breakdown.
bool ttftPart(const std::string& role) {
    const auto& parts = TtftBreakdown::parts();
    return std::any_of(parts.begin(), parts.end(),
                       [&](const TtftBreakdown::Part& p) { return role == p.role; });
}

// The one latency that is per token, not per request (no mean adds into TTFT).
constexpr const char* kPerToken = "itl";

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

} // namespace

std::optional<double>
EngineMetricsMapper::summed(const std::optional<std::map<std::string, double>>& bySplit) {
    std::optional<double> total;
    if (bySplit)
        for (const auto& [split, d] : *bySplit)
            total = total.value_or(0) + d;
    return total;
}

std::string EngineMetricsMapper::sanitize(const std::string& text) {
    std::string out;
    for (const char c : text)
        out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':'
                   ? c
                   : '_';
    return out;
}

EngineMetricsMapper::EngineMetricsMapper(std::string endpointId, bool recordRaw,
                                         const EngineMetricCatalog& catalog)
    : m_prefix("engine/" + std::move(endpointId) + "/"), m_recordRaw(recordRaw),
      m_catalog(catalog) {}

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

EngineMetricsMapper::Snapshot
EngineMetricsMapper::snapshot(const PrometheusTextParser::Result& scrape, std::int64_t tNs) const {
    Snapshot now;
    now.tNs = tNs;
    for (const auto& s : scrape.samples) {
        const std::string family = scrape.familyOf(s.name);
        if (scrape.typeOf(s.name) == "histogram") {
            const bool bucket = s.name == family + "_bucket";
            const bool sum = s.name == family + "_sum", count = s.name == family + "_count";
            double le = 0;
            const std::string* bound = bucket ? s.label("le") : nullptr;
            if ((bucket && (!bound || !PrometheusTextParser::parseValue(*bound, le))) ||
                (!bucket && !std::isfinite(s.value)))
                continue;
            for (const auto& [role, f] : m_catalog.entries(family, s.labels)) {
                if (role->type != "histogram")
                    continue;
                now.served.insert(f->id);
                if (sum)
                    now.sums[f->id][seriesKey(s)] = s.value;
                else if (count)
                    now.counts[f->id][seriesKey(s)] = s.value;
                if (!bucket)
                    continue;
                auto& buckets = now.histograms[f->id][seriesKey(s)];
                auto it = std::find_if(buckets.begin(), buckets.end(),
                                       [&](auto& b) { return b.first == le; });
                if (it == buckets.end())
                    buckets.emplace_back(le, s.value);
                else
                    it->second = s.value; // a repeated line: the last one stands
            }
            continue;
        }
        if (!std::isfinite(s.value))
            continue;
        for (const auto& [role, f] : m_catalog.entries(s.name, s.labels)) {
            if (role->type == "histogram")
                continue;
            const std::string* split = role->split.empty() ? nullptr : s.label(role->split);
            if (!role->split.empty() && !split)
                continue; // a series without the label cannot be put apart
            auto& values = role->type == "counter" ? now.counters : now.gauges;
            values[f->id][seriesKey(s)] = {s.value, split ? *split : std::string()};
            now.served.insert(f->id);
        }
    }
    return now;
}

void EngineMetricsMapper::put(std::vector<Reading>& out, const std::string& what, const char* unit,
                              std::optional<double> value) const {
    if (value && std::isfinite(*value))
        out.push_back({{m_prefix + what, unit, "gauge", "{}"}, *value});
}

std::vector<Reading> EngineMetricsMapper::update(const PrometheusTextParser::Result& scrape,
                                                 std::int64_t tNs) {
    Snapshot now = snapshot(scrape, tNs);
    std::vector<Reading> out;
    recordCoverage(out, m_catalog.coverage(now.served), tNs);
    gauges(out, now);

    // Prefix-cache hit rate: V1 token counters over the interval, else the V0 / SGLang gauge
    // (-1 there means prefix caching is off: absent).
    auto prefixHit = ratio(now, "prefix_cache_hits", "prefix_cache_queries");
    const Role* queries = role("prefix_cache_queries");
    const bool queryCounters =
        queries && std::any_of(queries->families.begin(), queries->families.end(),
                               [&](const auto& f) { return now.counters.count(f.id) > 0; });
    if (!prefixHit && !queryCounters) {
        prefixHit = gauge(now, "prefix_cache_hit_rate");
        if (prefixHit && *prefixHit < 0)
            prefixHit.reset();
    }
    put(out, "prefix_cache_hit_rate", "ratio", prefixHit);

    auto lmcacheHit = ratio(now, "lmcache_hit_tokens", "lmcache_requested_tokens");
    // LMCache's own gauge covers the first scrape, or exporters without the token counters.
    const Role* requested = role("lmcache_requested_tokens");
    const bool requestedCounters =
        requested && std::any_of(requested->families.begin(), requested->families.end(),
                                 [&](const auto& f) { return now.counters.count(f.id) > 0; });
    if (!lmcacheHit && (!m_previous || !requestedCounters))
        lmcacheHit = gauge(now, "lmcache_hit_rate");
    put(out, "lmcache_hit_rate", "ratio", lmcacheHit);

    if (m_previous && tNs > m_previous->tNs)
        intervalFigures(out, now);
    if (m_recordRaw) {
        raw(out, scrape);
        // Said beside the series, so a capped recording cannot pass for a complete one.
        out.push_back({{m_prefix + "raw_samples_dropped", "1", "counter", "{}"},
                       static_cast<double>(m_rawDropped)});
    }
    m_previous = std::move(now);
    return out;
}

void EngineMetricsMapper::recordCoverage(std::vector<Reading>& out,
                                         std::vector<EngineMetricCatalog::Coverage> now,
                                         std::int64_t tNs) {
    const auto same = [](const auto& x, const auto& y) {
        return x.engine == y.engine && x.served == y.served && x.missing == y.missing;
    };
    const bool changed =
        !std::equal(now.begin(), now.end(), m_coverage.begin(), m_coverage.end(), same);
    m_coverage = std::move(now);
    if (!changed && m_coverageRecordedNs && tNs - *m_coverageRecordedNs < kCoverageRepeatNs)
        return;
    m_coverageRecordedNs = tNs;
    for (const auto& engine : m_coverage)
        for (const auto* roles : {&engine.served, &engine.missing})
            for (const auto& r : *roles)
                put(out, "served{role=" + r + "}", "1", roles == &engine.served ? 1.0 : 0.0);
}

void EngineMetricsMapper::gauges(std::vector<Reading>& out, const Snapshot& now) const {
    put(out, "requests_running", "1", gauge(now, "requests_running"));
    put(out, "requests_waiting", "1", gauge(now, "requests_waiting"));
    put(out, "kv_cache_usage_ratio", "ratio", gauge(now, "kv_cache_usage"));
    put(out, "requests_swapped", "1", gauge(now, "requests_swapped"));
    put(out, "cpu_kv_cache_usage_ratio", "ratio", gauge(now, "cpu_kv_cache_usage"));
    put(out, "lmcache_local_cache_usage_bytes", "bytes", gauge(now, "lmcache_local_cache_usage"));
    put(out, "lmcache_remote_cache_usage_bytes", "bytes", gauge(now, "lmcache_remote_cache_usage"));
    recorded(out, now, false);
    // Why requests wait: "deferred" ones wait for their KV from a connector (a tier, storage).
    if (const auto byReason = gauge(now, role("requests_waiting_by_reason")))
        for (const auto& [reason, n] : *byReason)
            put(out, "requests_waiting{reason=" + sanitize(reason) + "}", "1", n);
}

// The roles the catalog has recorded as served (record = true): a gauge's value now, a
// counter's increase over the interval; per split value where the role keeps them apart.
void EngineMetricsMapper::recorded(std::vector<Reading>& out, const Snapshot& now,
                                   bool interval) const {
    for (const auto& r : m_catalog.roles()) {
        if (!r.record || (r.type == "counter") != interval)
            continue;
        const auto bySplit = interval ? increases(now, &r) : gauge(now, &r);
        if (!bySplit)
            continue;
        for (const auto& [split, v] : *bySplit)
            put(out,
                r.split.empty() ? r.name : r.name + "{" + r.split + "=" + sanitize(split) + "}",
                r.unit == "s" ? "s" : "1", v);
    }
}

void EngineMetricsMapper::intervalFigures(std::vector<Reading>& out, const Snapshot& now) {
    recorded(out, now, true);
    for (const auto& r : m_catalog.roles())
        if (r.type == "histogram" && r.unit == "s")
            quantiles(out, now, r);
    means(out, now);
    put(out, "prompt_tokens_per_s", "1/s", rate(now, "prompt_tokens"));
    put(out, "generation_tokens_per_s", "1/s", rate(now, "generation_tokens"));
    put(out, "preemptions_per_s", "1/s", rate(now, "preemptions"));
    put(out, "lmcache_remote_read_bytes_per_s", "bytes/s", rate(now, "lmcache_remote_read_bytes"));
    if (const auto speed = intervalBuckets(now, role("lmcache_retrieve_speed")))
        put(out, "lmcache_retrieve_speed_p50_tokens_per_s", "1/s",
            HistogramQuantile::compute(0.5, *speed));
    tierFigures(out, now);
}

std::optional<HistogramQuantile::Buckets>
EngineMetricsMapper::intervalBuckets(const Snapshot& now, const Role* role) const {
    if (!role)
        return std::nullopt;
    for (const auto& family : role->families) {
        const auto before = m_previous->histograms.find(family.id);
        const auto after = now.histograms.find(family.id);
        if (before != m_previous->histograms.end() && after != now.histograms.end())
            return HistogramQuantile::summedDelta(before->second, after->second);
    }
    return std::nullopt; // the first family the engine exposes wins
}

// The quantiles are histogram_quantile(q, sum by (le) (increase(..._bucket[30s]))): over the
// intervals that ended in the last kQuantileSpanNs, not over one interval, whose handful of
// requests would put p99 at a bucket edge. No request in the span: absent, never zero.
void EngineMetricsMapper::quantiles(std::vector<Reading>& out, const Snapshot& now,
                                    const Role& role) {
    const auto delta = intervalBuckets(now, &role);
    auto& recent = m_recent[role.name];
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
    put(out, role.name + "_p50_s", "s", HistogramQuantile::compute(0.50, span));
    put(out, role.name + "_p90_s", "s", HistogramQuantile::compute(0.90, span));
    put(out, role.name + "_p99_s", "s", HistogramQuantile::compute(0.99, span));
    // The TTFT parts' increases themselves too: summed over any span, they give that span's own
    // quantiles.
    if (!ttftPart(role.name))
        return;
    for (const auto& [le, count] : *delta) {
        char bound[40] = "+Inf";
        if (!std::isinf(le))
            std::snprintf(bound, sizeof bound, "%.15g", le);
        put(out, role.name + "_bucket{le=" + bound + "}", "1", count);
    }
}

// Each series' increase of _sum and _count over the interval, summed as sum(increase(...)):
// a series whose count or sum went down was reset and counts from zero; one in only one of the
// scrapes counts nothing. The first family the engine exposes wins; absent when none is in both.
std::optional<EngineMetricsMapper::Observed> EngineMetricsMapper::observed(const Snapshot& now,
                                                                           const Role& role) const {
    for (const auto& family : role.families) {
        const auto c0 = m_previous->counts.find(family.id), c1 = now.counts.find(family.id);
        const auto s0 = m_previous->sums.find(family.id), s1 = now.sums.find(family.id);
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
// front end's own time), and the storage waits (KV lookup wait, retrieve, load back) spread
// over every request are the part of the mean TTFT spent waiting on or reading KV.
void EngineMetricsMapper::means(std::vector<Reading>& out, const Snapshot& now) const {
    TtftBreakdown interval;
    for (const auto& r : m_catalog.roles()) {
        if (r.type != "histogram" || r.unit != "s" || r.name == kPerToken)
            continue;
        const auto o = observed(now, r);
        if (!o)
            continue;
        put(out, r.name + "_sum_s", "s", o->sumS);
        put(out, r.name + "_count", "1", o->count);
        if (o->count > 0)
            put(out, r.name + "_mean_s", "s", o->sumS / o->count);
        for (const auto& part : TtftBreakdown::parts())
            if (r.name == part.role)
                interval.*part.member = TtftBreakdown::Observed{o->sumS, o->count};
    }
    put(out, "storage_wait_per_request_s", "s", interval.storageWaitS());
    // The parts the mean TTFT adds up from, for the stacked chart: what the same breakdown
    // over a run or a window says, per interval.
    const auto residual = interval.residualS();
    if (!residual)
        return;
    put(out, "ttft_part_s{part=queue}", "s", interval.queueLessStorageS());
    put(out, "ttft_part_s{part=storage_wait}", "s", interval.storageWaitS());
    put(out, "ttft_part_s{part=prefill_compute}", "s", interval.prefillComputeS());
    put(out, "ttft_part_s{part=residual}", "s", residual);
}

// The counter's increase over the interval, summed over its series, as Prometheus'
// sum(rate(...)): a series that went down was reset and counts from zero; one in only one of
// the scrapes counts nothing. Absent when no series is in both.
std::optional<std::map<std::string, double>>
EngineMetricsMapper::increases(const Snapshot& now, const Family& family) const {
    const auto before = m_previous->counters.find(family.id);
    const auto after = now.counters.find(family.id);
    if (before == m_previous->counters.end() || after == now.counters.end())
        return std::nullopt;
    std::map<std::string, double> total;
    for (const auto& [key, v] : after->second) {
        const auto it = before->second.find(key);
        if (it != before->second.end())
            total[v.split] += v.value < it->second.value ? v.value : v.value - it->second.value;
    }
    return total.empty() ? std::nullopt : std::optional(std::move(total));
}

std::optional<std::map<std::string, double>>
EngineMetricsMapper::increases(const Snapshot& now, const Role* role) const {
    if (!role)
        return std::nullopt;
    for (const auto& family : role->families)
        if (auto total = increases(now, family))
            return total;
    return std::nullopt;
}

std::optional<double> EngineMetricsMapper::increase(const Snapshot& now, const Role* role) const {
    return summed(increases(now, role));
}

std::optional<double> EngineMetricsMapper::rate(const Snapshot& now, const char* name) const {
    const double seconds = static_cast<double>(now.tNs - m_previous->tNs) / 1e9;
    const auto d = increase(now, role(name));
    return d ? std::optional<double>(*d / seconds) : std::nullopt;
}

// Hits over queries of the same engine: the i-th family of one role with the i-th of the
// other, so a V0 hit counter is never divided by a V1 query counter.
std::optional<double> EngineMetricsMapper::ratio(const Snapshot& now, const char* hitsRole,
                                                 const char* queriesRole) const {
    const Role* hits = role(hitsRole);
    const Role* queries = role(queriesRole);
    if (!m_previous || !hits || !queries)
        return std::nullopt;
    for (std::size_t i = 0; i < hits->families.size() && i < queries->families.size(); ++i) {
        const auto dh = summed(increases(now, hits->families[i]));
        const auto dq = summed(increases(now, queries->families[i]));
        if (!dh || !dq)
            continue;
        if (*dq <= 0)
            return std::nullopt; // nothing queried in the interval
        return *dh / *dq;
    }
    return std::nullopt;
}

std::optional<std::map<std::string, double>> EngineMetricsMapper::gauge(const Snapshot& now,
                                                                        const Role* role) const {
    if (!role)
        return std::nullopt;
    for (const auto& family : role->families) {
        const auto it = now.gauges.find(family.id);
        if (it == now.gauges.end())
            continue;
        std::map<std::string, double> out;
        for (const auto& [key, v] : it->second) {
            const auto [slot, fresh] = out.emplace(v.split, v.value);
            if (!fresh)
                slot->second =
                    role->gaugeMax ? std::max(slot->second, v.value) : slot->second + v.value;
        }
        return out; // the first family the engine serves wins
    }
    return std::nullopt;
}

std::optional<double> EngineMetricsMapper::gauge(const Snapshot& now, const char* name) const {
    const auto bySplit = gauge(now, role(name));
    if (!bySplit || bySplit->empty())
        return std::nullopt;
    const Role* r = role(name);
    double total = r->gaugeMax ? -std::numeric_limits<double>::infinity() : 0;
    for (const auto& [split, v] : *bySplit)
        total = r->gaugeMax ? std::max(total, v) : total + v;
    return total;
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
