#include "collectors/storage/BlockStatCollector.h"

#include "collectors/base/SysfsReader.h"
#include "collectors/storage/BlockDeviceNames.h"
#include "collectors/storage/BlockRates.h"
#include "collectors/storage/BlockTotal.h"
#include "collectors/storage/NvmeIdentity.h"
#include "collectors/storage/NvmePathAttrs.h"

#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

namespace tierscope {

namespace {

// A path's ANA state and controller, and the subsystem's I/O policy on paths and heads: what
// `devices` and the path-skew finding read. Only what sysfs has is recorded.
void addMultipathAttrs(const std::string& name, const std::string& sysRoot, nlohmann::json& attrs) {
    const auto mp = NvmePathAttrs::of(name, sysRoot);
    if (!mp)
        return;
    auto put = [&](const char* key, const std::optional<std::string>& value) {
        if (value && !value->empty())
            attrs[key] = *value;
    };
    put("iopolicy", mp->iopolicy);
    put("ana_state", mp->anaState);
    put("controller", mp->controller);
    put("controller_state", mp->controllerState);
    put("traddr", mp->address.traddr);
    put("trsvcid", mp->address.trsvcid);
    put("host_traddr", mp->address.hostTraddr);
    put("src_addr", mp->address.srcAddr);
    if (!attrs.contains("transport"))
        put("transport", mp->transport);
}

} // namespace

BlockStatCollector::BlockStatCollector(SystemPaths paths,
                                       std::map<std::string, std::string> transports)
    : m_paths(std::move(paths)), m_transports(std::move(transports)) {}

bool BlockStatCollector::isWholeDisk(const std::string& name) {
    auto it = m_wholeDisk.find(name);
    if (it == m_wholeDisk.end()) {
        const bool partition =
            SysfsReader::exists(m_paths.sys + "/class/block/" + name + "/partition");
        it = m_wholeDisk.emplace(name, !partition).first;
    }
    return it->second;
}

std::string BlockStatCollector::labelsFor(const std::string& name) const {
    nlohmann::json labels = nlohmann::json::object();
    if (const auto head = BlockDeviceNames::multipathHead(name))
        labels["path_of"] = *head;
    if (const auto it = m_transports.find(name); it != m_transports.end())
        labels["transport"] = it->second;
    return labels.dump();
}

std::vector<Reading> BlockStatCollector::ratesBetween(const std::vector<DiskStat>& before,
                                                      const std::vector<DiskStat>& after,
                                                      std::int64_t dtNs) {
    std::unordered_map<std::string, const DiskStat*> previous;
    for (const auto& d : before)
        previous.emplace(d.name, &d);

    std::vector<Reading> out;
    BlockTotal total;
    for (const auto& d : after) {
        const auto it = previous.find(d.name);
        if (it == previous.end())
            continue; // appeared this interval: no baseline yet
        const auto rates = BlockRates::compute(*it->second, d, dtNs);
        if (!rates)
            continue;
        const std::string prefix = "block/" + d.name + "/";
        const std::string labels = labelsFor(d.name);
        auto emit = [&](const char* what, const char* unit, double value) {
            out.push_back({{prefix + what, unit, "gauge", labels}, value});
        };
        emit("read_bytes_per_s", "bytes/s", rates->readBytesPerS);
        emit("write_bytes_per_s", "bytes/s", rates->writeBytesPerS);
        emit("read_iops", "1/s", rates->readIops);
        emit("write_iops", "1/s", rates->writeIops);
        if (rates->readAwaitS)
            emit("read_await_s", "s", *rates->readAwaitS);
        if (rates->writeAwaitS)
            emit("write_await_s", "s", *rates->writeAwaitS);
        emit("util_pct", "percent", rates->utilPct);
        emit("queue_depth", "1", rates->queueDepth);
        total.add(d.name, *rates);
    }
    if (const auto sum = total.sum()) {
        out.push_back(
            {{"block/total/read_bytes_per_s", "bytes/s", "gauge", "{}"}, sum->readBytesPerS});
        out.push_back(
            {{"block/total/write_bytes_per_s", "bytes/s", "gauge", "{}"}, sum->writeBytesPerS});
    }
    return out;
}

std::vector<Reading> BlockStatCollector::sample(std::int64_t tNs) {
    const auto text = SysfsReader::readFile(m_paths.proc + "/diskstats");
    if (!text)
        return {};
    std::vector<DiskStat> current;
    for (auto& d : DiskstatsParser::parse(*text))
        if (!BlockDeviceNames::isIgnored(d.name) && isWholeDisk(d.name))
            current.push_back(std::move(d));
    if (current.size() != m_previous.size())
        m_wholeDisk.clear(); // hot-plug: a name may now be a different kind of device
    std::vector<Reading> out;
    if (m_previousT != 0)
        out = ratesBetween(m_previous, current, tNs - m_previousT);
    m_previous = std::move(current);
    m_previousT = tNs;
    return out;
}

std::string BlockStatCollector::totalRule(const std::string& name,
                                          const std::set<std::string>& heads) {
    if (const auto kind = BlockDeviceNames::stackedKind(name))
        return "no: " + *kind;
    if (BlockDeviceNames::multipathHead(name))
        return "if head idle";
    if (heads.count(name) != 0)
        return "if it moves";
    return "yes";
}

std::vector<DeviceRecord> BlockStatCollector::devices() {
    const auto names = SysfsReader::listDir(m_paths.sys + "/block");
    std::set<std::string> heads;
    for (const auto& name : names)
        if (const auto head = BlockDeviceNames::multipathHead(name))
            heads.insert(*head);
    std::vector<DeviceRecord> out;
    for (const auto& name : names) {
        if (BlockDeviceNames::isIgnored(name))
            continue;
        const std::string dir = m_paths.sys + "/block/" + name;
        nlohmann::json attrs = nlohmann::json::parse(labelsFor(name));
        attrs["in_total"] = totalRule(name, heads);
        if (const auto sectors = SysfsReader::readUint(dir + "/size"))
            attrs["size_bytes"] = *sectors * 512;
        if (const auto model = SysfsReader::readAttr(dir + "/device/model"))
            attrs["model"] = *model;
        if (const auto rotational = SysfsReader::readUint(dir + "/queue/rotational"))
            attrs["rotational"] = *rotational != 0;
        // What names the namespace across reconnects, for probes taken under another name.
        if (const auto nvme = NvmeIdentity::of(name, m_paths.sys)) {
            attrs["subsysnqn"] = nvme->subsysNqn;
            attrs["nsid"] = nvme->nsid;
        }
        addMultipathAttrs(name, m_paths.sys, attrs);
        out.push_back({"block", name, attrs.dump()});
    }
    return out;
}

} // namespace tierscope
