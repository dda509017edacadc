#include "core/view/ChartCatalog.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace tierscope {

namespace {

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

std::string label(const MetricInfo& m, const char* key) {
    const auto labels = nlohmann::json::parse(m.descriptor.labels, nullptr, false);
    if (!labels.is_object() || !labels.contains(key) || !labels[key].is_string())
        return {};
    return labels[key].get<std::string>();
}

std::string gpuName(const MetricInfo& m, const std::string& index) {
    const std::string model = label(m, "model");
    return "GPU " + index + (model.empty() ? "" : " (" + model + ")");
}

} // namespace

std::string ChartCatalog::transportName(const std::string& transport) {
    static const std::map<std::string, std::string> names = {{"pcie", "PCIe"},
                                                             {"tcp", "NVMe/TCP"},
                                                             {"rdma", "NVMe/RDMA"},
                                                             {"fc", "NVMe/FC"},
                                                             {"loop", "NVMe loop"}};
    const auto it = names.find(transport);
    return it == names.end() ? transport : it->second;
}

namespace {

// The series one metric contributes, and to which chart; false when it has no chart.
// The engine's KV route, per label value: where prompt tokens came from, what the offload
// tiers moved, and the requests deferred for their KV (in the requests chart).
bool kvRoute(const std::vector<std::string>& p, std::string& chart, ChartCatalog::Series& series) {
    const std::string& what = p[2];
    const auto open = what.find('{'), eq = what.find('=');
    const std::string name = what.substr(0, open);
    const std::string value = open == std::string::npos || eq == std::string::npos
                                  ? std::string()
                                  : what.substr(eq + 1, what.size() - eq - 2);
    if (name == "prompt_tokens_share" && !value.empty()) {
        chart = "kv-token-sources";
        series.name = p[1] + " " + value;
    } else if (name == "kv_tier_read_bytes_per_s" || name == "kv_tier_write_bytes_per_s") {
        chart = "kv-tiers";
        series.name = p[1] + " " + value + (name[8] == 'r' ? " read" : " write");
    } else if (name == "kv_offload_load_bytes_per_s" || name == "kv_offload_store_bytes_per_s") {
        chart = "kv-tiers";
        series.name = p[1] + (name[11] == 'l' ? " offload load" : " offload store");
    } else if (what == "nixl_transfer_bytes_per_s") {
        chart = "kv-tiers";
        series.name = p[1] + " NIXL transfer (between instances)";
    } else if (what == "requests_waiting{reason=deferred}") {
        chart = "requests";
        series.name = p[1] + " deferred (waiting for KV)";
    } else {
        return false;
    }
    return true;
}

bool place(const MetricInfo& m, std::string& chart, ChartCatalog::Series& series) {
    const auto p = split(m.descriptor.path);
    series.metricId = m.id;
    if (p.size() == 3 && p[0] == "gpu") {
        if (p[2] == "busy_pct") {
            chart = "gpu-busy";
            series.name = gpuName(m, p[1]);
        } else if (p[2] == "vram_used_bytes" || p[2] == "vram_total_bytes") {
            chart = "gpu-vram";
            series.reference = p[2] == "vram_total_bytes";
            series.name = gpuName(m, p[1]) + (series.reference ? " total" : " used");
        }
        return !chart.empty();
    }
    if (p.size() == 3 && p[0] == "block" && p[1] != "total" &&
        (p[2] == "read_bytes_per_s" || p[2] == "write_bytes_per_s")) {
        const std::string transport = label(m, "transport");
        // An NVMe multipath path disk says whose path it is: per-path bandwidth beside its
        // namespace's, where a skewed path shows.
        const std::string head = label(m, "path_of");
        std::string detail = transport.empty() ? "" : ChartCatalog::transportName(transport);
        if (!head.empty())
            detail += (detail.empty() ? "" : ", ") + std::string("path of ") + head;
        chart = "storage";
        series.name = p[1] + (p[2][0] == 'r' ? " read" : " write") +
                      (detail.empty() ? "" : " (" + detail + ")");
        return true;
    }
    if (p.size() == 2 && p[0] == "workload") {
        chart = "storage";
        series.name = label(m, "workload") + (p[1][0] == 'r' ? " read" : " write");
        return true;
    }
    if (m.descriptor.path == "host/cpu/busy_pct") {
        chart = "host-cpu";
        series.name = "CPU busy";
        return true;
    }
    if (m.descriptor.path == "host/cpu/steal_pct") {
        chart = "host-cpu";
        series.name = "CPU steal";
        return true;
    }
    if (p.size() == 3 && p[0] == "node" && p[2] == "cpu_busy_pct") { // through Prometheus
        chart = "host-cpu";
        series.name = p[1] + " CPU busy";
        return true;
    }
    static const std::map<std::string, std::string> memory = {
        {"host/mem/page_cache_bytes", "page cache"},
        {"host/mem/dirty_bytes", "dirty"},
        {"host/mem/writeback_bytes", "writeback"}};
    if (const auto it = memory.find(m.descriptor.path); it != memory.end()) {
        chart = "host-memory";
        series.name = it->second;
        return true;
    }
    if (p.size() != 3 || p[0] != "engine")
        return false;
    static const std::map<std::string, std::pair<std::string, std::string>> engine = {
        {"ttft_p50_s", {"engine-ttft", "TTFT p50"}},
        {"ttft_p99_s", {"engine-ttft", "TTFT p99"}},
        // The parts' p50s are not charted: vLLM's phase buckets start at 0.3 s, so any phase
        // faster than that has p50 0.15 s, which would draw a 1 ms prefill at 150 ms. Their
        // means, below, add up to the mean TTFT.
        // Means add up where quantiles do not: TTFT = queue + prefill, KV retrieve inside it.
        {"ttft_mean_s", {"ttft-breakdown", "mean TTFT"}},
        {"queue_time_mean_s", {"ttft-breakdown", "queue"}},
        {"prefill_time_mean_s", {"ttft-breakdown", "prefill"}},
        {"storage_wait_per_request_s", {"ttft-breakdown", "storage wait"}},
        // Sessions recorded before the storage waits were summed: LMCache's retrieve alone.
        {"kv_retrieve_per_request_s", {"ttft-breakdown", "KV retrieve"}},
        {"generation_tokens_per_s", {"engine-tokens", "generation"}},
        {"prompt_tokens_per_s", {"engine-tokens", "prompt"}},
        {"kv_cache_usage_ratio", {"kv-cache", "KV-cache usage"}},
        {"requests_running", {"requests", "running"}},
        {"requests_waiting", {"requests", "waiting"}}};
    if (kvRoute(p, chart, series))
        return true;
    // The parts the mean TTFT adds up from, per interval, from the bottom of the stack.
    static const std::map<std::string, std::pair<int, std::string>> parts = {
        {"ttft_part_s{part=queue}", {1, "queue"}},
        {"ttft_part_s{part=storage_wait}", {2, "storage wait"}},
        {"ttft_part_s{part=prefill_compute}", {3, "prefill compute"}},
        {"ttft_part_s{part=residual}", {4, "residual"}}};
    if (const auto part = parts.find(p[2]); part != parts.end()) {
        chart = "ttft-breakdown";
        series.name = p[1] + " " + part->second.second;
        series.stack = part->second.first;
        return true;
    }
    const auto it = engine.find(p[2]);
    if (it == engine.end())
        return false;
    chart = it->second.first;
    series.name = p[1] + " " + it->second.second;
    return true;
}

// Where one engine's TTFT parts were recorded, the breakdown is their stack (queue, storage
// wait, prefill compute, residual from the bottom: the top is the mean TTFT, drawn over it as
// a reference line), not the whole phases as lines, which overlap (the storage wait lies inside
// a phase). Several engines' parts do not stack on each other: there the lines stay.
void stackTtftParts(ChartCatalog::Chart& c) {
    const auto bottoms =
        std::count_if(c.series.begin(), c.series.end(), [](const auto& s) { return s.stack == 1; });
    if (bottoms == 0)
        return;
    if (bottoms > 1) {
        std::erase_if(c.series, [](const auto& s) { return s.stack > 0; });
        return;
    }
    const auto mean = std::find_if(c.series.begin(), c.series.end(),
                                   [](const auto& s) { return s.name.ends_with(" mean TTFT"); });
    std::optional<ChartCatalog::Series> top;
    if (mean != c.series.end()) {
        top = *mean;
        top->reference = true;
    }
    std::erase_if(c.series, [](const auto& s) { return s.stack == 0; });
    std::stable_sort(c.series.begin(), c.series.end(),
                     [](const auto& a, const auto& b) { return a.stack < b.stack; });
    if (top)
        c.series.push_back(*top);
    c.stacked = true;
    c.title = "TTFT breakdown: the mean's parts, stacked";
}

// A GPU backend names itself in its device record ("display": "AMD GPU"). Sessions recorded
// before it did carry only the backend's id, named here for them alone.
std::string backendName(const DeviceRecord& d, const nlohmann::json& attrs) {
    if (attrs.contains("display") && attrs["display"].is_string())
        return attrs["display"].get<std::string>();
    static const std::map<std::string, std::string> recordedBefore = {
        {"amd", "AMD GPU"}, {"nvidia", "NVIDIA GPU"}, {"ascend", "Ascend NPU"}};
    const auto it = recordedBefore.find(d.name);
    return it == recordedBefore.end() ? std::string() : it->second;
}

std::string gpuAbsence(const std::vector<DeviceRecord>& devices) {
    std::string reasons;
    for (const auto& d : devices) {
        if (d.kind != "backend")
            continue;
        const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
        if (!attrs.is_object() || attrs.value("state", "") == "available")
            continue;
        const std::string name = backendName(d, attrs);
        if (name.empty()) // not a GPU backend (the NVMe one)
            continue;
        reasons += std::string(reasons.empty() ? "" : "\n") + "No " + name + ": " +
                   attrs.value("reason", std::string("unavailable"));
    }
    return reasons.empty() ? "No GPU metrics were recorded in this session" : reasons;
}

} // namespace

std::vector<ChartCatalog::Chart> ChartCatalog::build(const std::vector<MetricInfo>& metrics,
                                                     const std::vector<DeviceRecord>& devices) {
    const std::string noEngine = "No inference engine is scraped: add its /metrics URL in "
                                 "Settings, or record with --engine URL";
    std::vector<Chart> charts = {
        {"gpu-busy", "GPU busy", Unit::Percent, {}, gpuAbsence(devices)},
        {"gpu-vram", "VRAM used", Unit::Bytes, {}, gpuAbsence(devices)},
        {"storage",
         "Storage bandwidth",
         Unit::BytesPerSecond,
         {},
         "No block-device statistics were recorded"},
        {"host-cpu", "Host CPU", Unit::Percent, {}, "No host CPU statistics were recorded"},
        {"host-memory",
         "Page cache and dirty memory",
         Unit::Bytes,
         {},
         "No host memory statistics were recorded"},
        {"engine-ttft", "Engine TTFT, p50 and p99 over 30 s", Unit::Seconds, {}, noEngine},
        {"ttft-breakdown", "TTFT breakdown", Unit::Seconds, {}, noEngine},
        {"engine-tokens", "Engine tokens/s", Unit::TokensPerSecond, {}, noEngine},
        {"kv-cache", "KV-cache usage", Unit::Ratio, {}, noEngine},
        {"requests", "Requests running and waiting", Unit::Count, {}, noEngine},
        // Only where an engine serves them (vLLM's KV offload and token sources): most do not,
        // and an empty chart for each would crowd the timeline.
        {"kv-token-sources", "Prompt tokens by source (share)", Unit::Ratio, {}, {}},
        {"kv-tiers", "KV offload tiers", Unit::BytesPerSecond, {}, {}},
    };
    for (const auto& m : metrics) {
        std::string id;
        Series series;
        if (!place(m, id, series))
            continue;
        series.node = label(m, "node");
        for (auto& c : charts)
            if (c.id == id)
                c.series.push_back(series);
    }
    for (auto& c : charts) {
        std::stable_sort(c.series.begin(), c.series.end(),
                         [](const Series& a, const Series& b) { return a.name < b.name; });
        if (c.id == "ttft-breakdown")
            stackTtftParts(c);
        if (!c.series.empty())
            c.absentReason.clear();
    }
    std::erase_if(charts, [](const Chart& c) {
        return c.series.empty() && (c.id == "kv-token-sources" || c.id == "kv-tiers");
    });
    return charts;
}

} // namespace tierscope
