#include "agent/AgentExposition.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: its samples are written under one HELP and TYPE.
struct Family {
    std::string name, type, help;
    std::vector<std::pair<Labels, double>> samples;
};

std::string number(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.15g", v); // shortest that usually round-trips
    if (std::strtod(buffer, nullptr) != v)
        std::snprintf(buffer, sizeof buffer, "%.17g", v);
    return buffer;
}

std::string renderFamily(const Family& f) {
    if (f.samples.empty())
        return {};
    std::string out =
        "# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
    for (const auto& [labels, value] : f.samples) {
        out += f.name;
        if (!labels.empty()) {
            out += "{";
            for (std::size_t i = 0; i < labels.size(); ++i)
                out += (i ? "," : "") + labels[i].first + "=\"" +
                       AgentExposition::escapeLabel(labels[i].second) + "\"";
            out += "}";
        }
        out += " " + number(value) + "\n";
    }
    return out;
}

std::string at(const std::map<std::string, std::string>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? "" : it->second;
}

// "gpu/3/busy_pct" -> {"3", "busy_pct"}
std::pair<std::string, std::string> split(const std::string& path, const char* head) {
    const std::string rest = path.substr(std::string(head).size());
    const auto slash = rest.find('/');
    if (slash == std::string::npos)
        return {"", rest};
    return {rest.substr(0, slash), rest.substr(slash + 1)};
}

} // namespace

std::string AgentExposition::escapeLabel(const std::string& value) {
    std::string out;
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string AgentExposition::render(const AgentSnapshot& s) {
    Family readBytes{"tierscope_block_read_bytes_total",
                     "counter",
                     "Bytes read from the block device (/proc/diskstats sectors x 512).",
                     {}};
    Family writeBytes{
        "tierscope_block_write_bytes_total", "counter", "Bytes written to the block device.", {}};
    Family reads{"tierscope_block_reads_completed_total", "counter", "Reads completed.", {}};
    Family writes{"tierscope_block_writes_completed_total", "counter", "Writes completed.", {}};
    Family ioTime{"tierscope_block_io_time_seconds_total",
                  "counter",
                  "Time the device had I/O in flight.",
                  {}};
    Family inFlight{"tierscope_block_io_in_flight", "gauge", "I/Os in flight now.", {}};
    for (const auto& d : s.disks) {
        const Labels l = {{"device", d.name},
                          {"transport", at(s.transports, d.name)},
                          {"nqn", at(s.nqns, d.name)}};
        readBytes.samples.push_back({l, static_cast<double>(d.sectorsRead) * 512});
        writeBytes.samples.push_back({l, static_cast<double>(d.sectorsWritten) * 512});
        reads.samples.push_back({l, static_cast<double>(d.reads)});
        writes.samples.push_back({l, static_cast<double>(d.writes)});
        ioTime.samples.push_back({l, static_cast<double>(d.ioMs) / 1000});
        inFlight.samples.push_back({l, static_cast<double>(d.inFlight)});
    }

    Family controller{"tierscope_nvme_controller_info",
                      "gauge",
                      "An NVMe controller and its transport; the value is always 1.",
                      {}};
    for (const auto& c : s.controllers) {
        const auto a = nlohmann::json::parse(c.attrs, nullptr, false);
        auto field = [&](const char* key) {
            return a.is_object() && a.contains(key) && a[key].is_string()
                       ? a[key].get<std::string>()
                       : std::string();
        };
        controller.samples.push_back({{{"controller", c.name},
                                       {"transport", field("transport")},
                                       {"traddr", field("traddr")},
                                       {"trsvcid", field("trsvcid")},
                                       {"nqn", field("subsysnqn")},
                                       {"model", field("model")},
                                       {"serial", field("serial")}},
                                      1.0});
    }

    Family busy{"tierscope_gpu_busy_ratio", "gauge", "GPU busy, 0 to 1.", {}};
    Family memBusy{
        "tierscope_gpu_memory_busy_ratio", "gauge", "GPU memory controller busy, 0 to 1.", {}};
    Family vramUsed{"tierscope_gpu_vram_used_bytes", "gauge", "VRAM in use.", {}};
    Family vramTotal{"tierscope_gpu_vram_total_bytes", "gauge", "VRAM installed.", {}};
    Family power{"tierscope_gpu_power_watts", "gauge", "Average board power.", {}};
    for (const auto& r : s.gpu) {
        if (r.metric.path.rfind("gpu/", 0) != 0)
            continue;
        const auto [id, what] = split(r.metric.path, "gpu/");
        const auto j = nlohmann::json::parse(r.metric.labels, nullptr, false);
        auto label = [&](const char* key) {
            return j.is_object() && j.contains(key) && j[key].is_string()
                       ? j[key].get<std::string>()
                       : std::string();
        };
        const Labels l = {{"gpu", id}, {"model", label("model")}, {"vendor", label("vendor")}};
        if (what == "busy_pct")
            busy.samples.push_back({l, r.value / 100});
        else if (what == "mem_busy_pct")
            memBusy.samples.push_back({l, r.value / 100});
        else if (what == "vram_used_bytes")
            vramUsed.samples.push_back({l, r.value});
        else if (what == "vram_total_bytes")
            vramTotal.samples.push_back({l, r.value});
        else if (what == "power_w")
            power.samples.push_back({l, r.value});
    }

    Family cpu{"tierscope_host_cpu_busy_ratio",
               "gauge",
               "Host CPU busy over the last interval, 0 to 1 (iowait and steal are not busy).",
               {}};
    Family memory{"tierscope_host_memory_bytes",
                  "gauge",
                  "Host memory by kind: total, used, page_cache, dirty, writeback.",
                  {}};
    for (const auto& r : s.host) {
        const std::string& p = r.metric.path;
        if (p == "host/cpu/busy_pct")
            cpu.samples.push_back({{}, r.value / 100});
        else if (p.rfind("host/mem/", 0) == 0 && p.size() > 15 &&
                 p.compare(p.size() - 6, 6, "_bytes") == 0)
            memory.samples.push_back({{{"kind", p.substr(9, p.size() - 15)}}, r.value});
    }

    Family build{"tierscope_agent_build_info",
                 "gauge",
                 "The agent's version; the value is 1.",
                 {{{{"version", s.version}}, 1.0}}};
    Family scrapes{"tierscope_agent_scrapes_total",
                   "counter",
                   "Scrapes served before this one.",
                   {{{}, s.scrapes}}};
    std::string out;
    for (const auto* f :
         {&readBytes, &writeBytes, &reads, &writes, &ioTime, &inFlight, &controller, &busy,
          &memBusy, &vramUsed, &vramTotal, &power, &cpu, &memory, &build, &scrapes})
        out += renderFamily(*f);
    return out;
}

} // namespace tierscope
