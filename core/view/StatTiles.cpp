#include "core/view/StatTiles.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace tierscope {

namespace {

enum class Combine { Sum, Max, Mean };

struct Picked {
    std::vector<const MetricInfo*> metrics;
    std::set<std::string> transports; // of the block devices picked
};

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const auto slash = path.find('/', start);
        parts.push_back(path.substr(start, slash - start));
        if (slash == std::string::npos)
            return parts;
        start = slash + 1;
    }
}

// Metrics of the form <root>/<anything>/<leaf>; block/total is the sum of the devices and
// would count them twice.
Picked pick(const std::vector<MetricInfo>& metrics, const std::string& root,
            const std::string& leaf) {
    Picked out;
    for (const auto& m : metrics) {
        const auto p = split(m.descriptor.path);
        if (p.size() != 3 || p[0] != root || p[2] != leaf || (root == "block" && p[1] == "total"))
            continue;
        out.metrics.push_back(&m);
        const auto labels = nlohmann::json::parse(m.descriptor.labels, nullptr, false);
        if (labels.is_object() && labels.contains("transport") && labels["transport"].is_string())
            out.transports.insert(labels["transport"].get<std::string>());
    }
    return out;
}

double combine(const std::vector<double>& values, Combine how) {
    double out = how == Combine::Max ? values.front() : 0.0;
    for (const double v : values)
        out = how == Combine::Max ? std::max(out, v) : out + v;
    return how == Combine::Mean ? out / static_cast<double>(values.size()) : out;
}

struct Reading {
    std::optional<double> now;
    std::vector<std::optional<double>> bins;
    std::size_t seriesNow = 0; // series with a recent sample
};

// Each series' latest bucket (if recent) and its buckets binned into `points` columns, then
// combined across series bin by bin; a bin no series reaches stays absent.
Reading readCombined(const std::vector<const MetricInfo*>& metrics, const StatTiles::Reader& read,
                     std::int64_t t0, std::int64_t t1, int points, Combine how) {
    Reading out;
    const int n = std::max(1, points);
    std::vector<std::vector<double>> perBin(static_cast<std::size_t>(n));
    std::vector<double> latest;
    const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
    for (const auto* m : metrics) {
        const auto buckets = read(m->id, t0, t1, n);
        std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
        std::vector<std::int64_t> count(static_cast<std::size_t>(n), 0);
        for (const auto& b : buckets) {
            if (b.count <= 0)
                continue;
            const std::int64_t mid = b.tNs + b.widthNs / 2;
            const auto bin = std::clamp<std::int64_t>((mid - t0) * n / span, 0, n - 1);
            sum[static_cast<std::size_t>(bin)] += b.sum;
            count[static_cast<std::size_t>(bin)] += b.count;
        }
        for (std::size_t i = 0; i < perBin.size(); ++i)
            if (count[i] > 0)
                perBin[i].push_back(sum[i] / static_cast<double>(count[i]));
        const auto last = std::find_if(buckets.rbegin(), buckets.rend(),
                                       [](const Bucket& b) { return b.count > 0; });
        if (last != buckets.rend() && last->tNs + last->widthNs >= t1 - StatTiles::kStaleNs)
            latest.push_back(last->mean());
    }
    for (const auto& values : perBin)
        out.bins.push_back(values.empty() ? std::nullopt
                                          : std::optional<double>(combine(values, how)));
    out.seriesNow = latest.size();
    if (!latest.empty())
        out.now = combine(latest, how);
    return out;
}

std::string absenceOf(const std::vector<ChartCatalog::Chart>& charts, const std::string& id) {
    for (const auto& c : charts)
        if (c.id == id)
            return c.absentReason;
    return {};
}

std::string staleText(const char* what) {
    return std::string("No ") + what + " sample in the last " +
           std::to_string(StatTiles::kStaleNs / 1'000'000'000LL) + " s";
}

std::string seconds(std::int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(ns) / 1e9);
    return text;
}

// TTFT p50 / p99 as histogram_quantile of the engine's bucket increases summed over the
// complete windows that ended in the last kTtftSpanNs, with the requests behind them: the sums
// the In-view line and `analyze` add up, never a mean of per-scrape quantiles (which is no
// quantile of anything). Endpoints are pooled, as sum by (le) pools them.
StatTiles::Tile ttftTile(const std::vector<MetricInfo>& metrics,
                         const std::vector<ChartCatalog::Chart>& charts, std::int64_t t0Ns,
                         std::int64_t t1Ns, int points, const SessionAnalysis::Result* analysis) {
    StatTiles::Tile t{"ttft", "TTFT p50 / p99", ChartCatalog::Unit::Seconds};
    t.secondLabel = "p99";
    const Picked engines = pick(metrics, "engine", "ttft_p50_s");
    if (engines.metrics.empty()) {
        const std::string chartReason = absenceOf(charts, "engine-ttft");
        t.absentReason = !chartReason.empty() ? chartReason : "The engine reports no TTFT";
        return t;
    }
    if (!analysis) {
        t.absentReason = "Not computed";
        return t;
    }
    const int n = std::max(1, points);
    std::vector<TtftBreakdown> bins(static_cast<std::size_t>(n));
    const std::int64_t width = std::max<std::int64_t>(1, t1Ns - t0Ns);
    for (const auto& w : analysis->windows)
        if (w.t0Ns + analysis->windowNs <= t1Ns) {
            const std::int64_t mid = w.t0Ns + analysis->windowNs / 2;
            bins[static_cast<std::size_t>(
                     std::clamp<std::int64_t>((mid - t0Ns) * n / width, 0, n - 1))]
                .add(w.ttft);
        }
    for (const auto& b : bins)
        t.sparkline.push_back(b.ttft ? b.ttft->quantile(0.5) : std::nullopt);
    std::int64_t span = 0;
    const auto recent = analysis->ttftWithin(t1Ns - StatTiles::kTtftSpanNs, t1Ns, &span);
    const double requests = recent.requests().value_or(0);
    if (requests <= 0) {
        t.absentReason =
            "No request reached its first token in the last " + seconds(StatTiles::kTtftSpanNs);
        return t;
    }
    t.value = recent.ttft->quantile(0.5);
    t.second = recent.ttft->quantile(0.99);
    if (!t.value) {
        t.absentReason = "The engine's TTFT buckets do not hold its requests";
        return t;
    }
    t.detail = std::to_string(std::llround(requests)) + " requests in the last " + seconds(span);
    if (engines.metrics.size() > 1)
        t.detail += ", " + std::to_string(engines.metrics.size()) + " endpoints pooled";
    return t;
}

} // namespace

std::vector<StatTiles::Tile> StatTiles::compute(const std::vector<MetricInfo>& metrics,
                                                const std::vector<ChartCatalog::Chart>& charts,
                                                const Reader& read, std::int64_t t0Ns,
                                                std::int64_t t1Ns, int points,
                                                const SessionAnalysis::Result* bottlenecks) {
    using Unit = ChartCatalog::Unit;
    std::vector<Tile> tiles;
    tiles.reserve(7); // `numeric` hands out a pointer to the tile it adds
    // One numeric tile: its series combined, or why there are none.
    auto numeric = [&](Tile tile, const Picked& picked, Combine how, const std::string& chart,
                       const char* what, const std::string& missing) {
        if (picked.metrics.empty()) {
            const std::string chartReason = absenceOf(charts, chart);
            tile.absentReason = !chartReason.empty() ? chartReason : missing;
        } else {
            auto r = readCombined(picked.metrics, read, t0Ns, t1Ns, points, how);
            tile.value = r.now;
            tile.sparkline = std::move(r.bins);
            if (!tile.value)
                tile.absentReason = staleText(what);
        }
        tiles.push_back(std::move(tile));
        return &tiles.back();
    };

    tiles.push_back(ttftTile(metrics, charts, t0Ns, t1Ns, points, bottlenecks));
    numeric({"tokens", "Output tokens/s", Unit::TokensPerSecond},
            pick(metrics, "engine", "generation_tokens_per_s"), Combine::Sum, "engine-tokens",
            "token-rate", "The engine reports no generation rate");
    {
        const Picked gpus = pick(metrics, "gpu", "busy_pct");
        auto* tile = numeric({"gpu", "GPU busy", Unit::Percent}, gpus, Combine::Mean, "gpu-busy",
                             "GPU", "No GPU metrics were recorded");
        if (gpus.metrics.size() > 1)
            tile->detail = "mean of " + std::to_string(gpus.metrics.size()) + " GPUs";
    }
    {
        const Picked reads = pick(metrics, "block", "read_bytes_per_s");
        auto* tile = numeric({"storage", "Storage read", Unit::BytesPerSecond}, reads, Combine::Sum,
                             "storage", "block-device", "No block-device statistics were recorded");
        std::string transports;
        for (const auto& tr : reads.transports)
            transports += (transports.empty() ? "" : ", ") + ChartCatalog::transportName(tr);
        const std::string devices = std::to_string(reads.metrics.size()) +
                                    (reads.metrics.size() == 1 ? " device" : " devices");
        if (!reads.metrics.empty())
            tile->detail = transports.empty() ? devices : transports + ", " + devices;
    }
    numeric({"kv", "KV-cache usage", Unit::Ratio}, pick(metrics, "engine", "kv_cache_usage_ratio"),
            Combine::Max, "kv-cache", "KV-cache", "The engine reports no KV-cache usage");
    {
        const Picked prefix = pick(metrics, "engine", "prefix_cache_hit_rate");
        const Picked lmcache = pick(metrics, "engine", "lmcache_hit_rate");
        // Without an engine at all, say so (as its charts do) rather than "no hit rate".
        const std::string noEngine = absenceOf(charts, "engine-ttft");
        const std::string missing =
            !noEngine.empty() ? noEngine : "The engine reports no prefix-cache hit rate";
        Tile t{"hit", "Prefix / LMCache hit", Unit::Ratio};
        t.secondLabel = "LMCache";
        Tile* tile = nullptr;
        if (!prefix.metrics.empty() || lmcache.metrics.empty()) {
            tile = numeric(t, prefix, Combine::Max, "", "hit-rate", missing);
            if (!lmcache.metrics.empty())
                tile->second = readCombined(lmcache.metrics, read, t0Ns, t1Ns, 1, Combine::Max).now;
        } else {
            t.title = "LMCache hit";
            numeric(t, lmcache, Combine::Max, "", "hit-rate", missing);
        }
    }
    {
        Tile t{"bottleneck", "Bottleneck now", Unit::Count};
        const SessionAnalysis::Window* latest = nullptr;
        if (bottlenecks)
            for (const auto& w : bottlenecks->windows)
                // A window still filling is not judged: its verdict would change as it fills.
                if (w.verdict.rule != "no-data" && w.t0Ns + bottlenecks->windowNs <= t1Ns &&
                    w.t0Ns + bottlenecks->windowNs >= t1Ns - kStaleNs)
                    latest = &w;
        if (latest) {
            t.text = BottleneckClassifier::name(latest->verdict.cls);
            // Unknown keeps the text colour: its pale band colour is unreadable as text.
            if (latest->verdict.cls != BottleneckClassifier::Class::Unknown)
                t.color = BottleneckClassifier::color(latest->verdict.cls);
            t.detail = latest->verdict.evidence;
        } else {
            t.absentReason = bottlenecks ? "No window with measurements yet" : "Not classified";
        }
        tiles.push_back(std::move(t));
    }
    return tiles;
}

} // namespace tierscope
