#include "core/analysis/SessionAnalysis.h"

#include "core/analysis/KvTier.h"
#include "core/store/Store.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

namespace tierscope {

namespace {

// Total: the metric's samples summed over the window (per-interval sums and counts), then
// summed over metrics.
enum class Fold { Sum, Max, Mean, Total };

// Metrics of one kind (every endpoint, read and write) folded together, window by window.
struct Series {
    Fold how = Fold::Sum;
    std::vector<std::optional<double>> values; // per window
    std::vector<int> counts;                   // metrics that reported in the window
};

void fold(Series& s, std::size_t window, double v) {
    auto& slot = s.values[window];
    if (!slot)
        slot = v;
    else if (s.how == Fold::Max)
        slot = std::max(*slot, v);
    else
        *slot += v;
    ++s.counts[window];
}

// "engine/<endpoint>/ttft_p50_s" -> true for tail "/ttft_p50_s".
bool engine(const std::string& p, const char* tail) {
    return p.starts_with("engine/") && p.ends_with(tail);
}

constexpr char kSep = '\x1f';

std::optional<double> positive(const nlohmann::json& attrs, const char* key) {
    if (!attrs.contains(key) || !attrs[key].is_number() || attrs[key].get<double>() <= 0)
        return std::nullopt;
    return attrs[key].get<double>();
}

// A `storage probe` result: the bandwidth ceiling is the faster of sequential read and write,
// since the analysis compares read + write traffic with one figure.
std::optional<SessionAnalysis::Ceiling> probeCeiling(const std::string& text) {
    const auto attrs = nlohmann::json::parse(text, nullptr, false);
    if (!attrs.is_object())
        return std::nullopt;
    SessionAnalysis::Ceiling c;
    const auto read = positive(attrs, "read_bytes_per_s"),
               write = positive(attrs, "write_bytes_per_s");
    if (read || write)
        c.bytesPerS = std::max(read.value_or(0), write.value_or(0));
    c.iops = positive(attrs, "random_read_iops");
    c.unloadedAwaitS = positive(attrs, "unloaded_read_s");
    c.probed = true;
    if (!c.bytesPerS && !c.iops)
        return std::nullopt;
    return c;
}

// An NVMe namespace's subsystem NQN and namespace id, from a block or probe device record.
using NvmeKey = std::pair<std::string, std::string>;
std::optional<NvmeKey> nvmeKey(const std::string& attrsText) {
    const auto attrs = nlohmann::json::parse(attrsText, nullptr, false);
    if (!attrs.is_object())
        return std::nullopt;
    const auto nqn = attrs.value("subsysnqn", std::string()), nsid = attrs.value("nsid", "");
    if (nqn.empty() || nsid.empty())
        return std::nullopt;
    return NvmeKey{nqn, nsid};
}

} // namespace

std::optional<std::pair<std::string, std::string>> SessionAnalysis::storageOf(const MetricInfo& m) {
    const std::string& p = m.descriptor.path;
    if (p == "workload/read_bytes_per_s" || p == "workload/write_bytes_per_s") {
        // Without its target path a workload series may span arms on different devices.
        const auto labels = nlohmann::json::parse(m.descriptor.labels, nullptr, false);
        const bool named = labels.is_object() && labels.contains("path") &&
                           labels["path"].is_string() && !labels["path"].get<std::string>().empty();
        return std::make_pair(named ? "workload " + labels["path"].get<std::string>()
                                    : std::string("workload"),
                              std::string("bytes"));
    }
    if (!p.starts_with("block/"))
        return std::nullopt;
    const auto slash = p.find('/', 6);
    if (slash == std::string::npos)
        return std::nullopt;
    const std::string device = p.substr(6, slash - 6), field = p.substr(slash + 1);
    if (device == "total")
        return std::nullopt; // a sum over disks, not a device with a ceiling
    if (field == "read_bytes_per_s" || field == "write_bytes_per_s")
        return std::make_pair(device, std::string("bytes"));
    if (field == "read_iops" || field == "write_iops")
        return std::make_pair(device, std::string("iops"));
    if (field == "read_await_s" || field == "write_await_s")
        return std::make_pair(device, std::string("await"));
    if (field == "queue_depth")
        return std::make_pair(device, field);
    if (field == "util_pct")
        return std::make_pair(device, std::string("util"));
    return std::nullopt;
}

SessionAnalysis::Result SessionAnalysis::analyze(Store& store, std::int64_t sessionId,
                                                 std::int64_t windowNs,
                                                 const BottleneckClassifier::Thresholds& t) {
    const auto info = store.session(sessionId);
    if (!info)
        return {windowNs, {}, {}, {}, {}};
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
        t0, end, windowNs, ceilings(store, sessionId), t, tierDevices(store, sessionId));
}

std::set<std::string> SessionAnalysis::tierDevices(Store& store, std::int64_t sessionId) {
    std::set<std::string> out;
    for (const auto& run : store.runsOfSession(sessionId))
        if (const auto tier = KvTier::ofSummary(run.summaryJson)) {
            const auto names = tier->all();
            out.insert(names.begin(), names.end());
        }
    return out;
}

SessionAnalysis::Ceilings SessionAnalysis::ceilings(Store& store, std::int64_t sessionId) {
    return ceilings(store, sessionId, {});
}

SessionAnalysis::Ceilings SessionAnalysis::ceilings(Store& store, std::int64_t sessionId,
                                                    const std::set<std::string>& devices) {
    const auto self = store.session(sessionId);
    if (!self)
        return {};
    std::set<std::string> wanted;
    for (const auto& d : devices)
        if (d != "workload")
            wanted.insert(d);
    for (const auto& m : store.metrics(sessionId))
        if (const auto s = storageOf(m); s && s->first != "workload")
            wanted.insert(s->first);
    // An NVMe-oF namespace gets a new kernel name when its controller reconnects: where both
    // the probe and this session know the namespace's NQN and id, those decide, not the name.
    std::map<std::string, NvmeKey> identity;
    for (const auto& d : store.devices(sessionId))
        if (d.kind == "block" && wanted.count(d.name))
            if (const auto key = nvmeKey(d.attrs))
                identity[d.name] = *key;
    auto probeOf = [&](const DeviceRecord& probe, const std::string& device) {
        // A storage workload's target is judged against the probe of its directory (or of a
        // directory above it): the device its path is on, as probed.
        if (device.starts_with("workload ")) {
            const auto attrs = nlohmann::json::parse(probe.attrs, nullptr, false);
            const std::string path = device.substr(9);
            const std::string dir = attrs.is_object() ? attrs.value("dir", "") : "";
            const std::string under = dir.empty() || dir.back() == '/' ? dir : dir + "/";
            return !dir.empty() && (path == dir || path.starts_with(under));
        }
        const auto mine = identity.find(device);
        const auto theirs = nvmeKey(probe.attrs);
        return mine != identity.end() && theirs ? mine->second == *theirs : probe.name == device;
    };
    std::map<std::string, double> best;
    Ceilings probed; // the latest probe of each device wins
    const std::int64_t now = WallClock().nowNs();
    for (const auto& session : store.sessions()) {
        if (session.host != self->host)
            continue; // another machine's nvme0n1 is another drive
        for (const auto& d : store.devices(session.id)) {
            if (d.kind != "storage-probe")
                continue;
            const auto c = probeCeiling(d.attrs);
            for (const auto& device : wanted)
                if (c && probeOf(d, device))
                    probed[device] = *c;
        }
        // A storage workload's own series is no ceiling of the device under it (a throttled
        // QD 1 load read "91 % of its ceiling" that way while the disk was 21 % busy), and
        // the analysed session's own seconds are no ceiling of its devices: its busiest second
        // would be "100 % of the ceiling" by construction.
        const std::int64_t end = session.endNs.value_or(now);
        if (end <= session.startNs || session.id == sessionId)
            continue;
        std::map<std::string, std::vector<std::int64_t>> byDevice;
        for (const auto& m : store.metrics(session.id))
            if (const auto s = storageOf(m); s && s->second == "bytes" && wanted.count(s->first) &&
                                             !s->first.starts_with("workload"))
                byDevice[s->first].push_back(m.id);
        // One bucket per second (two points each), read and write summed bucket by bucket.
        const auto seconds =
            std::clamp<std::int64_t>((end - session.startNs) / 1'000'000'000, 1, 100000);
        for (const auto& [device, ids] : byDevice) {
            std::map<std::int64_t, double> total;
            for (const auto id : ids)
                for (const auto& b :
                     store.readDecimated(id, session.startNs, end, static_cast<int>(2 * seconds)))
                    if (b.count > 0)
                        total[b.tNs] += b.mean();
            for (const auto& [tNs, bytes] : total)
                best[device] = std::max(best[device], bytes);
        }
    }
    Ceilings out = probed;
    for (const auto& [device, bytes] : best)
        if (bytes > 0 && !out.count(device))
            out[device].bytesPerS = bytes;
    return out;
}

namespace {

// Every series the classifier reads, folded into the analysis windows: per storage device, per
// GPU, the engine's p50s, its histograms' per-window sums, counts and bucket increases.
struct Windowed {
    std::size_t n = 0;
    std::map<std::string, Series> series;
    std::set<std::string> devices, gpus;
    // "<part>" -> (bound, series key) of its histogram buckets, "ttft" -> {(0.5, ...), ...}
    std::map<std::string, std::vector<std::pair<double, std::string>>> bounds;

    std::optional<double> value(const std::string& key, std::size_t w) const {
        const auto it = series.find(key);
        if (it == series.end() || !it->second.values[w])
            return std::nullopt;
        const auto& s = it->second;
        return s.how == Fold::Mean ? *s.values[w] / s.counts[w] : *s.values[w];
    }
};

Windowed windowed(const std::vector<MetricInfo>& metrics, const SessionAnalysis::Reader& read,
                  std::int64_t t0, std::int64_t windowNs, std::size_t n) {
    Windowed out;
    out.n = n;
    const std::int64_t t1 = t0 + static_cast<std::int64_t>(n) * windowNs;
    auto add = [&](const std::string& key, std::int64_t metric, Fold how) {
        auto& s = out.series[key];
        s.how = how;
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
                fold(s, w, how == Fold::Total ? windows[w].sum : windows[w].mean());
    };
    // The engine histograms' per-interval sums and counts, for the TTFT breakdown (each part's
    // engine/<endpoint>/<role>_sum_s and _count), and their buckets' per-interval increases,
    // "<role>_bucket{le=0.5}": summed over a window they are the window's own histogram, for
    // each part's p50 and p99.
    auto phase = [&](const std::string& p, std::int64_t id) {
        for (const auto& part : TtftBreakdown::parts()) {
            const std::string tail = std::string("/") + part.role + "_";
            const std::string key = part.key;
            for (const char* what : {"sum_s", "count"})
                if (engine(p, (tail + what).c_str())) {
                    add(key + kSep + what, id, Fold::Total);
                    return true;
                }
            const std::string head = tail + "bucket{le=";
            const auto at = p.find(head);
            if (!p.starts_with("engine/") || at == std::string::npos || !p.ends_with("}"))
                continue;
            const std::string le = p.substr(at + head.size(), p.size() - 1 - at - head.size());
            char* parsedTo = nullptr;
            const double bound = std::strtod(le.c_str(), &parsedTo);
            if (le.empty() || *parsedTo != '\0')
                return true; // not a bound this build wrote: ignored
            const std::string seriesKey = key + kSep + "le" + kSep + le;
            add(seriesKey, id, Fold::Total);
            auto& known = out.bounds[key];
            if (std::none_of(known.begin(), known.end(),
                             [&](const auto& b) { return b.second == seriesKey; }))
                known.emplace_back(bound, seriesKey);
            return true;
        }
        return false;
    };
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        if (const auto s = SessionAnalysis::storageOf(m)) {
            out.devices.insert(s->first);
            const bool sum = s->second == "bytes" || s->second == "iops";
            add(s->second + kSep + s->first, m.id, sum ? Fold::Sum : Fold::Max);
        } else if (p.starts_with("gpu/") && p.ends_with("/busy_pct")) {
            const std::string id = p.substr(4, p.size() - 4 - 9);
            out.gpus.insert(id);
            add(std::string("gpu") + kSep + id, m.id, Fold::Mean);
        } else if (engine(p, "/ttft_p50_s"))
            add("ttft", m.id, Fold::Mean);
        else if (engine(p, "/queue_time_p50_s"))
            add("queue", m.id, Fold::Mean);
        else if (engine(p, "/prefill_time_p50_s"))
            add("prefill", m.id, Fold::Mean);
        else if (engine(p, "/lmcache_retrieve_p50_s"))
            add("retrieve", m.id, Fold::Mean);
        else if (phase(p, m.id))
            continue;
        else if (engine(p, "/kv_cache_usage_ratio"))
            add("kv", m.id, Fold::Max);
        else if (engine(p, "/requests_running"))
            add("running", m.id, Fold::Sum);
        else if (engine(p, "/requests_waiting"))
            add("waiting", m.id, Fold::Sum);
        else if (engine(p, "/requests_waiting{reason=deferred}"))
            add("deferred", m.id, Fold::Sum);
        else if (engine(p, "/preemptions_per_s"))
            add("preemptions", m.id, Fold::Sum);
    }
    return out;
}

// The classifier's measurements of window w.
BottleneckClassifier::Window windowInput(const Windowed& data, std::size_t w,
                                         const SessionAnalysis::Ceilings& ceilings,
                                         const std::set<std::string>& tierDevices) {
    BottleneckClassifier::Window in;
    for (const auto& device : data.devices) {
        BottleneckClassifier::Storage s;
        s.name = device;
        s.bytesPerS = data.value(std::string("bytes") + kSep + device, w);
        s.iops = data.value(std::string("iops") + kSep + device, w);
        s.awaitS = data.value(std::string("await") + kSep + device, w);
        s.queueDepth = data.value(std::string("queue_depth") + kSep + device, w);
        s.utilPct = data.value(std::string("util") + kSep + device, w);
        if (!s.bytesPerS && !s.iops && !s.awaitS && !s.queueDepth && !s.utilPct)
            continue; // the device reported nothing in this window
        s.kvTier = tierDevices.count(device) != 0;
        if (const auto c = ceilings.find(device); c != ceilings.end()) {
            s.bandwidthCeiling = c->second.bytesPerS;
            s.iopsCeiling = c->second.iops;
            s.unloadedAwaitS = c->second.unloadedAwaitS;
            s.probed = c->second.probed;
        }
        in.storage.push_back(std::move(s));
    }
    for (const auto& gpu : data.gpus)
        if (const auto busy = data.value(std::string("gpu") + kSep + gpu, w))
            in.gpuBusy[gpu] = *busy;
    in.ttftS = data.value("ttft", w);
    in.queueS = data.value("queue", w);
    in.prefillS = data.value("prefill", w);
    in.retrieveS = data.value("retrieve", w);
    in.kvUsage = data.value("kv", w);
    in.requestsRunning = data.value("running", w);
    in.requestsWaiting = data.value("waiting", w);
    in.requestsDeferred = data.value("deferred", w);
    in.preemptionsPerS = data.value("preemptions", w);
    return in;
}

// Window w's requests from the engine histograms' sums, counts and buckets.
TtftBreakdown windowTtft(const Windowed& data, std::size_t w) {
    TtftBreakdown ttft;
    for (const auto& p : TtftBreakdown::parts()) {
        auto* part = &(ttft.*p.member);
        const std::string key = p.key;
        const auto sum = data.value(std::string(key) + kSep + "sum_s", w);
        const auto count = data.value(std::string(key) + kSep + "count", w);
        if (!sum || !count)
            continue;
        *part = TtftBreakdown::Observed{*sum, *count};
        HistogramQuantile::Buckets buckets;
        if (const auto known = data.bounds.find(key); known != data.bounds.end())
            for (const auto& [bound, seriesKey] : known->second)
                if (const auto v = data.value(seriesKey, w))
                    buckets.emplace_back(bound, *v);
        if (!buckets.empty()) {
            std::sort(buckets.begin(), buckets.end());
            (*part)->buckets = std::move(buckets);
        }
    }
    return ttft;
}

} // namespace

SessionAnalysis::Result SessionAnalysis::analyzeSeries(const std::vector<MetricInfo>& metrics,
                                                       const Reader& read, std::int64_t t0,
                                                       std::int64_t end, std::int64_t windowNs,
                                                       const Ceilings& ceilings,
                                                       const BottleneckClassifier::Thresholds& t,
                                                       const std::set<std::string>& tierDevices) {
    Result result;
    result.windowNs = windowNs;
    result.ceilings = ceilings;
    if (windowNs <= 0 || end <= t0)
        return result;
    const auto n =
        static_cast<std::size_t>(std::max<std::int64_t>(1, (end - t0 + windowNs - 1) / windowNs));
    const Windowed data = windowed(metrics, read, t0, windowNs, n);
    for (std::size_t w = 0; w < n; ++w) {
        BottleneckClassifier::Window in = windowInput(data, w, ceilings, tierDevices);
        const TtftBreakdown ttft = windowTtft(data, w);
        // The window's own p50 where its buckets were stored, over the mean of the scrape
        // intervals' p50s (which is no latency quantile of anything).
        for (auto [part, p50] : {std::pair{&ttft.ttft, &in.ttftS},
                                 {&ttft.queue, &in.queueS},
                                 {&ttft.prefill, &in.prefillS},
                                 {&ttft.retrieve, &in.retrieveS}})
            if (*part)
                if (const auto q = (*part)->quantile(0.5))
                    *p50 = q;
        result.ttft.add(ttft);
        in.means = ttft;
        auto verdict = BottleneckClassifier::classify(in, t);
        result.shares[verdict.cls] += 1.0 / static_cast<double>(n);
        result.windows.push_back({t0 + static_cast<std::int64_t>(w) * windowNs, std::move(in),
                                  std::move(verdict), ttft});
    }
    return result;
}

TtftBreakdown SessionAnalysis::Result::ttftWithin(std::int64_t t0Ns, std::int64_t t1Ns,
                                                  std::int64_t* spanNs) const {
    TtftBreakdown out;
    std::int64_t covered = 0;
    for (const auto& w : windows)
        if (w.t0Ns + windowNs > t0Ns && w.t0Ns + windowNs <= t1Ns) {
            out.add(w.ttft);
            covered += windowNs;
        }
    if (spanNs)
        *spanNs = covered;
    return out;
}

} // namespace tierscope
