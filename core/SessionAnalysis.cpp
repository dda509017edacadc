#include "core/SessionAnalysis.h"

#include "core/Store.h"
#include "core/WallClock.h"

#include <algorithm>

namespace tierscope {

namespace {

enum class Fold { Sum, Max, Mean };

// Metrics of one kind (every GPU, read and write) folded together, window by window.
struct Series {
    std::vector<std::optional<double>> values; // per window
    std::vector<int> counts;                   // metrics that reported in the window
};

void fold(Series& s, std::size_t window, double v, Fold how) {
    auto& slot = s.values[window];
    if (!slot)
        slot = v;
    else if (how == Fold::Max)
        slot = std::max(*slot, v);
    else
        *slot += v;
    ++s.counts[window];
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

} // namespace

SessionAnalysis::Result SessionAnalysis::analyze(Store& store, std::int64_t sessionId,
                                                 std::int64_t windowNs,
                                                 const BottleneckClassifier::Thresholds& t) {
    const auto info = store.session(sessionId);
    if (!info)
        return {windowNs, {}, {}};
    return analyzeRange(store, sessionId, info->startNs, info->endNs.value_or(WallClock().nowNs()),
                        windowNs, t);
}

SessionAnalysis::Result SessionAnalysis::analyzeRange(Store& store, std::int64_t sessionId,
                                                      std::int64_t t0, std::int64_t end,
                                                      std::int64_t windowNs,
                                                      const BottleneckClassifier::Thresholds& t) {
    return analyzeSeries(
        store.metrics(sessionId),
        [&store](std::int64_t metric, std::int64_t from, std::int64_t to, int points) {
            return store.readDecimated(metric, from, to, points);
        },
        t0, end, windowNs, t);
}

SessionAnalysis::Result SessionAnalysis::analyzeSeries(const std::vector<MetricInfo>& metrics,
                                                       const Reader& read, std::int64_t t0,
                                                       std::int64_t end, std::int64_t windowNs,
                                                       const BottleneckClassifier::Thresholds& t) {
    Result result;
    result.windowNs = windowNs;
    if (windowNs <= 0 || end <= t0)
        return result;
    const auto n =
        static_cast<std::size_t>(std::max<std::int64_t>(1, (end - t0 + windowNs - 1) / windowNs));
    const std::int64_t t1 = t0 + static_cast<std::int64_t>(n) * windowNs;
    std::map<std::string, Series> series;
    auto add = [&](const std::string& key, std::int64_t metric, Fold how) {
        auto& s = series[key];
        s.values.resize(n);
        s.counts.resize(n);
        // Twenty buckets per window: decimated buckets need not line up with window edges.
        // First the metric's own mean over each window, then folded with the kind's others:
        // summing buckets would count the samples, not the bandwidth.
        const int points = static_cast<int>(std::min<std::size_t>(20 * n, 400000));
        std::vector<Bucket> windows(n);
        for (const auto& b : read(metric, t0, t1, points)) {
            const auto w = static_cast<std::size_t>((b.tNs + b.widthNs / 2 - t0) / windowNs);
            if (w < n && b.count > 0)
                windows[w].merge(b.min, b.max, b.sum, b.count);
        }
        for (std::size_t w = 0; w < n; ++w)
            if (windows[w].count > 0)
                fold(s, w, windows[w].mean(), how);
    };
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        if (p == "block/total/read_bytes_per_s" || p == "block/total/write_bytes_per_s")
            add("bandwidth", m.id, Fold::Sum);
        else if (p == "workload/read_bytes_per_s" || p == "workload/write_bytes_per_s")
            add("workload", m.id, Fold::Sum);
        else if (p.rfind("block/", 0) == 0 && endsWith(p, "/util_pct"))
            add("util", m.id, Fold::Max);
        else if (p.rfind("gpu/", 0) == 0 && endsWith(p, "/busy_pct"))
            add("gpu", m.id, Fold::Mean);
        else if (p.rfind("engine/", 0) == 0 && endsWith(p, "/ttft_p50_s"))
            add("ttft", m.id, Fold::Mean);
        else if (p.rfind("engine/", 0) == 0 && endsWith(p, "/kv_cache_usage_ratio"))
            add("kv", m.id, Fold::Max);
        else if (p.rfind("engine/", 0) == 0 && endsWith(p, "/requests_waiting"))
            add("waiting", m.id, Fold::Sum);
        else if (p.rfind("engine/", 0) == 0 && endsWith(p, "/preemptions_per_s"))
            add("preemptions", m.id, Fold::Sum);
    }
    // A workload's own bandwidth sees what the block collector cannot (tmpfs, NFS).
    if (series.count("workload"))
        series["bandwidth"] = series["workload"];
    auto value = [&](const char* key, std::size_t w) -> std::optional<double> {
        const auto it = series.find(key);
        if (it == series.end() || !it->second.values[w])
            return std::nullopt;
        const bool mean = std::string(key) == "gpu" || std::string(key) == "ttft";
        return mean ? *it->second.values[w] / it->second.counts[w] : *it->second.values[w];
    };
    double ceiling = 0;
    for (std::size_t w = 0; w < n; ++w)
        ceiling = std::max(ceiling, value("bandwidth", w).value_or(0));
    for (std::size_t w = 0; w < n; ++w) {
        BottleneckClassifier::Window in;
        if (const auto bw = value("bandwidth", w); bw && ceiling > 0)
            in.storageShare = *bw / ceiling;
        in.storageUtilPct = value("util", w);
        in.gpuBusyPct = value("gpu", w);
        in.ttftS = value("ttft", w);
        in.kvUsage = value("kv", w);
        in.requestsWaiting = value("waiting", w);
        in.preemptionsPerS = value("preemptions", w);
        result.windows.push_back(
            {t0 + static_cast<std::int64_t>(w) * windowNs, BottleneckClassifier::classify(in, t)});
        result.shares[result.windows.back().verdict.cls] += 1.0 / static_cast<double>(n);
    }
    return result;
}

} // namespace tierscope
