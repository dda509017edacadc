#include "core/analysis/RunTimeline.h"

#include "core/analysis/EngineRoles.h"
#include "core/analysis/KvTier.h"
#include "core/analysis/SessionAnalysis.h"
#include "core/stats/PeakWindow.h"
#include "core/store/Store.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace tierscope {

namespace {

struct Source {
    std::vector<std::int64_t> metrics;
};

// Sums (bandwidth) or averages (GPUs, TTFT) the metrics' buckets slot by slot.
RunTimeline::Line line(Store& store, const Source& source, const RunInfo& run, std::int64_t end,
                       int points, double scale, bool average, const char* name, const char* unit) {
    std::map<std::int64_t, std::pair<double, int>> slots;
    for (const auto id : source.metrics)
        for (const auto& b : store.readDecimated(id, run.startNs, end, points))
            if (b.count > 0) {
                auto& slot = slots[b.tNs];
                slot.first += b.mean() * scale;
                ++slot.second;
            }
    RunTimeline::Line out{name, unit, {}};
    for (const auto& [t, v] : slots)
        out.points.emplace_back(static_cast<double>(t - run.startNs) / 1e9,
                                average ? v.first / v.second : v.first);
    return out;
}

// The highest 1 s mean from raw samples, in GB/s.
std::optional<double> peak(Store& store, const Source& source, const RunInfo& run,
                           std::int64_t end) {
    std::vector<std::vector<Sample>> series;
    for (const auto id : source.metrics)
        series.push_back(store.readRaw(id, run.startNs, end));
    // The run's first sample covers the time since the run began.
    const auto bytes = PeakWindow::highestMean(series, 1'000'000'000, run.startNs);
    return bytes ? std::optional<double>(*bytes * 1e-9) : std::nullopt;
}

std::optional<std::set<std::string>> ownEndpoints(const RunInfo& run) {
    const auto summary = nlohmann::json::parse(run.summaryJson, nullptr, false);
    if (!summary.is_object() || !summary.contains("engine_endpoints") ||
        !summary["engine_endpoints"].is_array())
        return std::nullopt;
    std::set<std::string> own;
    for (const auto& e : summary["engine_endpoints"])
        if (e.is_string())
            own.insert(e.get<std::string>());
    return own;
}

// engine/<endpoint>/<what>: the run's interval increases (samples in (start, end]) added up,
// or for the deferred requests the mean of the samples.
void readKvRoute(Store& store, const RunInfo& run, std::int64_t end,
                 const std::vector<MetricInfo>& metrics,
                 const std::optional<std::set<std::string>>& own, RunTimeline& out) {
    // Per endpoint: a mean each, added up (two engines' deferred requests add).
    std::map<std::string, std::pair<double, std::size_t>> deferredBy;
    std::optional<double> remote;
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        const auto slash = p.find('/', 7);
        if (!p.starts_with("engine/") || slash == std::string::npos)
            continue;
        if (own && !own->count(p.substr(7, slash - 7)))
            continue;
        const std::string what = p.substr(slash + 1);
        const bool tokens = what.starts_with("prompt_tokens{source=");
        const bool tier = what.starts_with("kv_tier_read_bytes{tier=");
        const bool load = what == "kv_offload_load_bytes";
        const bool deferred = what == "requests_waiting{reason=deferred}";
        const bool lmcache = what == "lmcache_remote_read_bytes";
        if (!tokens && !tier && !load && !deferred && !lmcache)
            continue;
        double sum = 0;
        std::size_t n = 0;
        for (const auto& s : store.readRaw(m.id, run.startNs + 1, end)) {
            sum += s.value;
            ++n;
        }
        if (n == 0)
            continue;
        if (tokens)
            out.promptTokensBySource[what.substr(21, what.size() - 22)] += sum;
        else if (tier)
            out.kvTierReadBytes = out.kvTierReadBytes.value_or(0) + sum;
        else if (load)
            out.kvOffloadLoadBytes = out.kvOffloadLoadBytes.value_or(0) + sum;
        else if (lmcache)
            remote = remote.value_or(0) + sum;
        else
            deferredBy[p.substr(7, slash - 7)] = {sum, n};
    }
    for (const auto& [endpoint, mean] : deferredBy)
        out.deferredMean =
            out.deferredMean.value_or(0) + mean.first / static_cast<double>(mean.second);
    out.bytesRoute.engineTierBytes = out.kvTierReadBytes;
    if (out.kvTierReadBytes)
        out.bytesRoute.engineTierSource = "vLLM offload tiers";
    else if (remote) {
        out.bytesRoute.engineTierBytes = remote;
        out.bytesRoute.engineTierSource = "LMCache remote backend";
    }
    out.bytesRoute.engineGpuLoadBytes = out.kvOffloadLoadBytes;
}

// The bytes a rate series (bytes/s, each sample over the interval since the one before) moved
// in the run's samples, (start, end]: each rate times its own interval, so a sample's
// interval that began before the run counts whole, as the engine's increases do. The first
// sample a collector ever stored has no predecessor: its interval is taken as the next one's.
std::optional<double> moved(Store& store, std::int64_t id, const RunInfo& run, std::int64_t end) {
    const auto samples = store.readRaw(id, run.startNs - 60'000'000'000LL, end);
    std::optional<double> bytes;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        if (samples[i].tNs <= run.startNs)
            continue;
        std::int64_t dt = 0;
        if (i > 0)
            dt = samples[i].tNs - samples[i - 1].tNs;
        else if (i + 1 < samples.size())
            dt = samples[i + 1].tNs - samples[i].tNs;
        bytes = bytes.value_or(0) + samples[i].value * static_cast<double>(dt) / 1e9;
    }
    return bytes;
}

void add(std::optional<double>& into, const std::optional<double>& v) {
    if (v)
        into = into.value_or(0) + *v;
}

// The device side of the bytes route: the tier directory's device (the run's summary names it)
// and what is below it, the NICs, the RDMA ports, the GPUs.
void readDeviceRoute(Store& store, const RunInfo& run, std::int64_t end,
                     const std::vector<MetricInfo>& metrics, BytesRoute& route) {
    std::set<std::string> below;
    if (const auto tier = KvTier::ofSummary(run.summaryJson)) {
        route.device = tier->device;
        route.deviceWhy = tier->why;
        below.insert(tier->members.begin(), tier->members.end());
        below.insert(tier->paths.begin(), tier->paths.end());
    } else {
        route.deviceWhy = "the run names no tier directory (an arm's path)";
    }
    double belowSum = 0;
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        if (p.starts_with("block/") && p.ends_with("/read_bytes_per_s")) {
            const std::string name = p.substr(6, p.size() - 6 - 17);
            if (!route.device.empty() && name == route.device)
                add(route.deviceBytes, moved(store, m.id, run, end));
            else if (below.count(name))
                if (const auto b = moved(store, m.id, run, end)) {
                    route.belowBytes.emplace_back(name, *b);
                    belowSum += *b;
                }
        } else if (p.starts_with("host/net/") && p.ends_with("/rx_bytes_per_s") &&
                   p != "host/net/lo/rx_bytes_per_s") {
            add(route.nicBytes, moved(store, m.id, run, end));
        } else if (p.starts_with("host/rdma/") && p.ends_with("/rx_bytes_per_s")) {
            add(route.rdmaBytes, moved(store, m.id, run, end));
        } else if (p.starts_with("gpu/") && p.ends_with("/pcie_rx_bytes_per_s")) {
            add(route.gpuRxBytes, moved(store, m.id, run, end));
        }
    }
    // A multipath head without its own accounting reads zero while its paths read: the paths
    // are the device's bytes then (never both, as the block total counts them).
    if (route.deviceBytes && *route.deviceBytes == 0 && belowSum > 0)
        route.deviceBytes = belowSum;
}

} // namespace

RunTimeline RunTimeline::read(Store& store, const RunInfo& run, int points) {
    RunTimeline out;
    if (!run.endNs || *run.endNs <= run.startNs)
        return out;
    const std::int64_t end = *run.endNs;
    out.durationS = static_cast<double>(end - run.startNs) / 1e9;
    Source workloadRead, workloadWrite, blockRead, blockWrite, gpu, ttft;
    // One read of the session's metric list for the run's every series.
    const auto metrics = store.metrics(run.sessionId);
    out.engineRoles = EngineRoles::read(store, metrics, run.startNs, end);
    // An experiment's run names its arm's endpoints: the other arm's, recorded in the same
    // session, are not this run's engine.
    const auto own = ownEndpoints(run);
    if (own)
        std::erase_if(out.engineRoles, [&](const auto& kv) { return !own->count(kv.first); });
    readKvRoute(store, run, end, metrics, own, out);
    readDeviceRoute(store, run, end, metrics, out.bytesRoute);
    out.gpuEnergy = RunEnergy::read(store, metrics, run.startNs, end);
    for (const auto& m : metrics) {
        const std::string& p = m.descriptor.path;
        if (p == "workload/read_bytes_per_s")
            workloadRead.metrics.push_back(m.id);
        else if (p == "workload/write_bytes_per_s")
            workloadWrite.metrics.push_back(m.id);
        else if (p == "block/total/read_bytes_per_s")
            blockRead.metrics.push_back(m.id);
        else if (p == "block/total/write_bytes_per_s")
            blockWrite.metrics.push_back(m.id);
        else if (p.starts_with("gpu/") && p.ends_with("/busy_pct"))
            gpu.metrics.push_back(m.id);
        else if (p.starts_with("engine/") && p.ends_with("/ttft_p50_s"))
            ttft.metrics.push_back(m.id);
    }
    auto bandwidth = [&](const Source& workload, const Source& block, const char* name,
                         std::optional<double>& highest) {
        auto l = line(store, workload, run, end, points, 1e-9, false, name, "GB/s");
        const Source* used = &workload;
        if (l.points.empty()) {
            l = line(store, block, run, end, points, 1e-9, false, name, "GB/s");
            used = &block;
        }
        if (!l.points.empty())
            highest = peak(store, *used, run, end);
        return l;
    };
    auto read = bandwidth(workloadRead, blockRead, "storage read", out.readPeakGBps);
    auto write = bandwidth(workloadWrite, blockWrite, "storage write", out.writePeakGBps);
    auto busy = line(store, gpu, run, end, points, 1.0, true, "GPU busy", "%");
    auto firstToken = line(store, ttft, run, end, points, 1.0, true, "engine TTFT p50", "s");
    if (!busy.points.empty()) {
        double sum = 0;
        for (const auto& p : busy.points)
            sum += p.second;
        out.gpuBusyMeanPct = sum / static_cast<double>(busy.points.size());
    }
    for (auto* l : {&read, &write, &busy, &firstToken})
        if (!l->points.empty())
            out.lines.push_back(std::move(*l));
    // About a hundred windows per run, none shorter than the recorder's usual interval.
    const std::int64_t window = std::max<std::int64_t>(250'000'000, (end - run.startNs) / 100);
    const auto analysis =
        SessionAnalysis::analyzeRange(store, run.sessionId, run.startNs, end, window);
    if (!analysis.windows.empty())
        out.shares = analysis.shares;
    out.ttft = analysis.ttft;
    return out;
}

} // namespace tierscope
