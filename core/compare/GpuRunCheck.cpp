#include "core/compare/GpuRunCheck.h"

#include "core/compare/ComparisonResult.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"
#include "core/util/Joined.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

namespace tierscope {

namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100.0);
    return text;
}

// Partition modes of several GPUs: "SPX/CPX".
std::string modes(const std::set<std::string>& items) {
    return joined(items, "/");
}

void peak(std::optional<double>& into, double value) {
    into = std::max(into.value_or(value), value);
}

// gpu/<key>/<what> -> what the check reads of it, into the run's GPU named after key.
void readSeries(Store& store, const MetricInfo& m, const RunInfo& run,
                std::map<std::string, GpuRunCheck::Gpu>& gpus) {
    const std::string& p = m.descriptor.path;
    const auto last = p.rfind('/');
    if (p.rfind("gpu/", 0) != 0 || last == std::string::npos || last <= 4)
        return;
    const std::string what = p.substr(last + 1);
    static const std::set<std::string> kRead = {"throttled",           "busy_pct",
                                                "pcie_link_width",     "pcie_link_width_max",
                                                "pcie_link_speed_gts", "pcie_link_speed_max_gts"};
    if (!kRead.count(what))
        return;
    const auto samples = store.readRaw(m.id, run.startNs, *run.endNs);
    if (samples.empty())
        return;
    const std::string key = p.substr(4, last - 4);
    auto& gpu = gpus[key];
    gpu.name = "gpu" + key;
    for (const auto& s : samples) {
        if (what == "throttled") {
            ++gpu.samples;
            gpu.throttled += s.value != 0 ? 1 : 0;
        } else if (what == "busy_pct") {
            gpu.busy = gpu.busy || s.value > 0;
        } else {
            auto& into = what == "pcie_link_width"       ? gpu.widthPeak
                         : what == "pcie_link_width_max" ? gpu.widthMax
                         : what == "pcie_link_speed_gts" ? gpu.speedPeakGts
                                                         : gpu.speedMaxGts;
            peak(into, s.value);
        }
    }
}

// "run 7: gpu0 throttled in 3 of 150 samples (2.0 %)": more than the limit's share of the run.
std::optional<std::string> throttled(const GpuRunCheck::Run& run) {
    std::vector<std::string> parts;
    for (const auto& g : run.gpus) {
        if (g.samples == 0)
            continue;
        const double share = static_cast<double>(g.throttled) / static_cast<double>(g.samples);
        if (share > GpuRunCheck::kThrottledShareLimit)
            parts.push_back(g.name + " throttled in " + std::to_string(g.throttled) + " of " +
                            std::to_string(g.samples) + " samples (" + percent(share) + ")");
    }
    if (parts.empty())
        return std::nullopt;
    return joined(parts) + ", above " + percent(GpuRunCheck::kThrottledShareLimit) + " of the run";
}

// A link may train down while its GPU idles (NVIDIA and AMD both lower the PCIe speed and
// width to save power), so one low sample proves nothing: a link is below its maximum only if
// the highest it reached over a run in which its GPU worked is.
std::optional<std::string> linkBelowMax(const GpuRunCheck::Run& run) {
    std::vector<std::string> parts;
    for (const auto& g : run.gpus) {
        if (!g.busy)
            continue;
        std::vector<std::string> below;
        if (g.widthPeak && g.widthMax && *g.widthPeak < *g.widthMax)
            below.push_back("x" + number(*g.widthPeak) + " of x" + number(*g.widthMax));
        if (g.speedPeakGts && g.speedMaxGts && *g.speedPeakGts < *g.speedMaxGts)
            below.push_back(number(*g.speedPeakGts) + " of " + number(*g.speedMaxGts) + " GT/s");
        if (!below.empty())
            parts.push_back(g.name + " at most " + joined(below, " and "));
    }
    if (parts.empty())
        return std::nullopt;
    return "PCIe link below its maximum while the GPU was busy: " + joined(parts);
}

} // namespace

std::vector<GpuRunCheck::Flag> GpuRunCheck::of(const Side& a, const Side& b) {
    std::vector<Flag> out;
    for (const auto& [side, name] : {std::pair{&a, 'A'}, std::pair{&b, 'B'}})
        for (const auto& run : side->runs) {
            if (auto text = throttled(run))
                out.push_back({name, run.id, "gpu_throttle", std::move(*text)});
            if (auto text = linkBelowMax(run))
                out.push_back({name, run.id, "gpu_pcie_link", std::move(*text)});
        }
    std::vector<std::string> differ;
    for (const auto& [what, ma, mb] :
         {std::tuple{"compute", &a.computePartitions, &b.computePartitions},
          std::tuple{"memory", &a.memoryPartitions, &b.memoryPartitions}})
        if (!ma->empty() && !mb->empty() && *ma != *mb)
            differ.push_back(std::string(what) + " partition " + modes(*ma) + " on A's GPUs, " +
                             modes(*mb) + " on B's");
    // Neither side is the odd one out: both carry it.
    if (!differ.empty())
        for (const char side : {'A', 'B'})
            out.push_back({side, 0, "gpu_partition", joined(differ, "; ")});
    return out;
}

GpuRunCheck::Side GpuRunCheck::read(Store& store, const ComparisonSide& side) {
    Side out;
    std::map<std::int64_t, std::vector<MetricInfo>> metricsOf; // by session
    std::set<std::int64_t> sessions;
    for (const auto& run : side.runs) {
        if (!RunKpis::isMeasurement(run) || !run.endNs || *run.endNs <= run.startNs)
            continue;
        sessions.insert(run.sessionId);
        auto [it, fresh] = metricsOf.try_emplace(run.sessionId);
        if (fresh)
            it->second = store.metrics(run.sessionId);
        std::map<std::string, Gpu> gpus;
        for (const auto& m : it->second)
            readSeries(store, m, run, gpus);
        Run r{run.id, {}};
        for (auto& [key, gpu] : gpus)
            r.gpus.push_back(std::move(gpu));
        out.runs.push_back(std::move(r));
    }
    for (const auto id : sessions)
        for (const auto& d : store.devices(id)) {
            if (d.kind != "gpu")
                continue;
            const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
            if (!attrs.is_object())
                continue;
            for (const auto& [key, into] : {std::pair{"compute_partition", &out.computePartitions},
                                            std::pair{"memory_partition", &out.memoryPartitions}})
                if (attrs.contains(key) && attrs[key].is_string())
                    into->insert(attrs[key].get<std::string>());
        }
    return out;
}

void GpuRunCheck::addTo(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                        ComparisonResult& out) {
    for (auto& flag : of(read(store, a), read(store, b))) {
        const std::string run = flag.run ? "run " + std::to_string(flag.run) + ": " : "";
        out.warnings.push_back(std::string(1, flag.side) + ": " + run + flag.check + ": " +
                               flag.text);
        out.runChecks.emplace_back(
            flag.side, Comparison::RunCheck{flag.run, flag.check, "warn", std::move(flag.text)});
    }
}

} // namespace tierscope
