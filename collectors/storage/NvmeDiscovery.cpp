#include "collectors/storage/NvmeDiscovery.h"

#include "collectors/storage/BlockDeviceNames.h"
#include "collectors/base/SysfsReader.h"

#include <cstdio>
#include <libnvme.h>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <spdlog/spdlog.h>

namespace tierscope {

namespace {

std::string text(const char* s) {
    return s ? std::string(s) : std::string();
}

} // namespace

NvmeDiscovery::NvmeDiscovery(SystemPaths paths) : m_paths(std::move(paths)) {}

std::vector<NvmeNamespaceInfo> NvmeDiscovery::namespacesOf(const std::string& ctrlSysfsDir) const {
    static const std::regex kNamespace("^nvme[0-9]+(c[0-9]+)?n[0-9]+$");
    std::vector<NvmeNamespaceInfo> out;
    for (const auto& entry : SysfsReader::listDir(ctrlSysfsDir)) {
        if (!std::regex_match(entry, kNamespace))
            continue;
        NvmeNamespaceInfo ns;
        ns.blockName = entry;
        ns.head = BlockDeviceNames::multipathHead(entry);
        if (const auto sectors = SysfsReader::readUint(m_paths.sys + "/block/" + entry + "/size"))
            ns.sizeBytes = *sectors * 512;
        out.push_back(std::move(ns));
    }
    return out;
}

std::vector<NvmeControllerInfo> NvmeDiscovery::discover() const {
    // libnvme logs to a FILE*; keep it off the user's terminal and in our debug log instead.
    char* logText = nullptr;
    std::size_t logSize = 0;
    FILE* log = open_memstream(&logText, &logSize);
    nvme_root_t root = nvme_create_root(log, LOG_WARNING);
    std::vector<NvmeControllerInfo> out;
    if (root) {
        nvme_scan_topology(root, nullptr, nullptr);
        nvme_host_t h;
        nvme_subsystem_t s;
        nvme_ctrl_t c;
        nvme_for_each_host(root, h) nvme_for_each_subsystem(h, s)
            nvme_subsystem_for_each_ctrl(s, c) {
            NvmeControllerInfo info;
            info.name = text(nvme_ctrl_get_name(c));
            info.transport = text(nvme_ctrl_get_transport(c));
            info.traddr = text(nvme_ctrl_get_traddr(c));
            info.trsvcid = text(nvme_ctrl_get_trsvcid(c));
            info.hostTraddr = text(nvme_ctrl_get_host_traddr(c));
            info.subsystem = text(nvme_subsystem_get_name(s));
            info.subsysNqn = text(nvme_ctrl_get_subsysnqn(c));
            info.model = text(nvme_ctrl_get_model(c));
            info.serial = text(nvme_ctrl_get_serial(c));
            info.firmware = text(nvme_ctrl_get_firmware(c));
            info.state = text(nvme_ctrl_get_state(c));
            info.namespaces = namespacesOf(text(nvme_ctrl_get_sysfs_dir(c)));
            out.push_back(std::move(info));
        }
        nvme_free_tree(root);
    }
    if (log)
        std::fclose(log);
    if (logText && logSize > 0)
        spdlog::debug("libnvme: {}", std::string(logText, logSize));
    std::free(logText);
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) {
        return a.name.size() != b.name.size() ? a.name.size() < b.name.size() : a.name < b.name;
    });
    return out;
}

std::vector<DeviceRecord>
NvmeDiscovery::toDeviceRecords(const std::vector<NvmeControllerInfo>& ctrls) {
    std::vector<DeviceRecord> out;
    for (const auto& c : ctrls) {
        nlohmann::json attrs = {{"transport", c.transport}, {"traddr", c.traddr},
                                {"trsvcid", c.trsvcid},     {"host_traddr", c.hostTraddr},
                                {"subsystem", c.subsystem}, {"subsysnqn", c.subsysNqn},
                                {"model", c.model},         {"serial", c.serial},
                                {"firmware", c.firmware},   {"state", c.state}};
        nlohmann::json namespaces = nlohmann::json::array();
        for (const auto& ns : c.namespaces) {
            nlohmann::json n = {{"block", ns.blockName}};
            if (ns.head)
                n["head"] = *ns.head;
            if (ns.sizeBytes)
                n["size_bytes"] = *ns.sizeBytes;
            namespaces.push_back(n);
        }
        attrs["namespaces"] = namespaces;
        out.push_back({"nvme-controller", c.name, attrs.dump()});
    }
    return out;
}

std::map<std::string, std::string>
NvmeDiscovery::transportsByBlockDevice(const std::vector<NvmeControllerInfo>& ctrls) {
    std::map<std::string, std::string> out;
    std::map<std::string, std::set<std::string>> headTransports;
    for (const auto& c : ctrls) {
        for (const auto& ns : c.namespaces) {
            out[ns.blockName] = c.transport;
            if (ns.head)
                headTransports[*ns.head].insert(c.transport);
        }
    }
    for (const auto& [head, transports] : headTransports) {
        std::string joined;
        for (const auto& t : transports)
            joined += (joined.empty() ? "" : "+") + t;
        out[head] = joined;
    }
    return out;
}

} // namespace tierscope
