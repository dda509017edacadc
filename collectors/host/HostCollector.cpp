#include "collectors/host/HostCollector.h"

#include "collectors/host/MeminfoParser.h"
#include "collectors/base/SysfsReader.h"

namespace tierscope {

namespace {

// Rate of a cumulative counter; nullopt when it went backwards (interface reset).
std::optional<double> counterRate(std::uint64_t before, std::uint64_t after, double seconds) {
    if (after < before || seconds <= 0)
        return std::nullopt;
    return static_cast<double>(after - before) / seconds;
}

} // namespace

HostCollector::HostCollector(SystemPaths paths) : m_paths(std::move(paths)) {}

std::vector<Reading> HostCollector::sample(std::int64_t tNs) {
    std::vector<Reading> out;
    const double seconds = m_previousT != 0 ? static_cast<double>(tNs - m_previousT) / 1e9 : 0.0;
    sampleCpu(out);
    sampleMemory(out);
    sampleNetwork(out, seconds);
    sampleRdma(out, seconds);
    m_previousT = tNs;
    return out;
}

void HostCollector::sampleCpu(std::vector<Reading>& out) {
    const auto text = SysfsReader::readFile(m_paths.proc + "/stat");
    if (!text)
        return;
    for (const auto& now : ProcStatParser::parse(*text)) {
        if (const auto it = m_cpu.find(now.name); it != m_cpu.end()) {
            if (const auto busy = ProcStatParser::busyPercent(it->second, now)) {
                const std::string path = now.name == "cpu"
                                             ? "host/cpu/busy_pct"
                                             : "host/cpu/" + now.name.substr(3) + "/busy_pct";
                out.push_back({{path, "percent", "gauge"}, *busy});
            }
            if (now.name == "cpu")
                if (const auto steal = ProcStatParser::stealPercent(it->second, now))
                    out.push_back({{"host/cpu/steal_pct", "percent", "gauge"}, *steal});
        }
        m_cpu[now.name] = now;
    }
}

void HostCollector::sampleMemory(std::vector<Reading>& out) {
    const auto text = SysfsReader::readFile(m_paths.proc + "/meminfo");
    if (!text)
        return;
    const auto mem = MeminfoParser::parse(*text);
    auto field = [&](const char* name) -> std::optional<double> {
        const auto it = mem.find(name);
        return it == mem.end() ? std::nullopt
                               : std::optional<double>(static_cast<double>(it->second));
    };
    const auto total = field("MemTotal");
    const auto available = field("MemAvailable");
    if (total)
        out.push_back({{"host/mem/total_bytes", "bytes", "gauge"}, *total});
    if (total && available)
        out.push_back({{"host/mem/used_bytes", "bytes", "gauge"}, *total - *available});
    const std::pair<const char*, const char*> fields[] = {
        {"Cached", "host/mem/page_cache_bytes"},
        {"Dirty", "host/mem/dirty_bytes"},
        {"Writeback", "host/mem/writeback_bytes"}};
    for (const auto& [name, path] : fields)
        if (const auto v = field(name))
            out.push_back({{path, "bytes", "gauge"}, *v});
}

void HostCollector::sampleNetwork(std::vector<Reading>& out, double seconds) {
    const auto text = SysfsReader::readFile(m_paths.proc + "/net/dev");
    if (!text)
        return;
    std::map<std::string, NetDevCounters> current;
    for (auto& c : NetDevParser::parse(*text)) {
        if (const auto it = m_net.find(c.interface); it != m_net.end()) {
            const std::string prefix = "host/net/" + c.interface + "/";
            if (const auto rx = counterRate(it->second.rxBytes, c.rxBytes, seconds))
                out.push_back({{prefix + "rx_bytes_per_s", "bytes/s", "gauge"}, *rx});
            if (const auto tx = counterRate(it->second.txBytes, c.txBytes, seconds))
                out.push_back({{prefix + "tx_bytes_per_s", "bytes/s", "gauge"}, *tx});
        }
        current.emplace(c.interface, std::move(c));
    }
    m_net = std::move(current);
}

std::vector<InfinibandCounters> HostCollector::readRdmaPorts() {
    std::vector<InfinibandCounters> ports;
    const std::string root = m_paths.sys + "/class/infiniband";
    for (const auto& device : SysfsReader::listDir(root)) {
        for (const auto& port : SysfsReader::listDir(root + "/" + device + "/ports")) {
            const std::string dir = root + "/" + device + "/ports/" + port + "/counters/";
            std::map<std::string, std::string> files;
            for (const char* name : {"port_rcv_data", "port_xmit_data"})
                if (const auto text = SysfsReader::readAttr(dir + name))
                    files.emplace(name, *text);
            if (auto c = InfinibandCounters::fromCounterFiles(device, port, files))
                ports.push_back(std::move(*c));
        }
    }
    return ports;
}

void HostCollector::sampleRdma(std::vector<Reading>& out, double seconds) {
    std::map<std::string, InfinibandCounters> current;
    for (auto& c : readRdmaPorts()) {
        const std::string key = c.device + "/" + c.port;
        if (const auto it = m_rdma.find(key); it != m_rdma.end()) {
            const std::string prefix = "host/rdma/" + key + "/";
            if (const auto rx = counterRate(it->second.rxBytes, c.rxBytes, seconds))
                out.push_back({{prefix + "rx_bytes_per_s", "bytes/s", "gauge"}, *rx});
            if (const auto tx = counterRate(it->second.txBytes, c.txBytes, seconds))
                out.push_back({{prefix + "tx_bytes_per_s", "bytes/s", "gauge"}, *tx});
        }
        current.emplace(key, std::move(c));
    }
    m_rdma = std::move(current);
}

} // namespace tierscope
