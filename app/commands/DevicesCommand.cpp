#include "app/commands/DevicesCommand.h"

#include "app/common/ExitCode.h"
#include "app/common/WorkspaceOpener.h"
#include "collectors/MachineInventory.h"
#include "core/analysis/MultipathHeads.h"
#include "core/analysis/PathSkew.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/UnitFormat.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tierscope {

namespace {

std::string field(const nlohmann::json& attrs, const char* key) {
    if (!attrs.contains(key))
        return "-";
    const auto& v = attrs[key];
    if (v.is_string())
        return v.get<std::string>().empty() ? "-" : v.get<std::string>();
    return v.dump();
}

// Per NVMe native-multipath head: the subsystem's iopolicy, each path with its controller,
// transport, address and ANA state, and what is wrong with a path now (a non-optimized or
// inaccessible one). Skew needs each path's recorded traffic, which a device table lacks.
void printMultipath(const std::vector<DeviceRecord>& devices) {
    const auto heads = MultipathHeads::fromDevices(devices);
    if (heads.empty())
        return;
    std::map<std::string, nlohmann::json> attrsOf;
    for (const auto& d : devices)
        if (d.kind == "block")
            attrsOf[d.name] = nlohmann::json::parse(d.attrs, nullptr, false);
    std::printf("NVMe multipath\n");
    for (const auto& head : heads) {
        std::printf("  %s  iopolicy %s\n    %-12s %-10s %-9s %-26s %-15s %s\n", head.name.c_str(),
                    head.iopolicy.value_or("-").c_str(), "PATH", "CONTROLLER", "TRANSPORT",
                    "ADDRESS", "ANA STATE", "STATE");
        for (const auto& p : head.paths) {
            const auto& a = attrsOf[p.name];
            std::printf("    %-12s %-10s %-9s %-26s %-15s %s\n", p.name.c_str(),
                        field(a, "controller").c_str(), field(a, "transport").c_str(),
                        p.address.empty() ? "-" : p.address.c_str(),
                        p.anaState.value_or("-").c_str(), field(a, "controller_state").c_str());
        }
    }
    for (const auto& f : PathSkew::judge(heads).findings)
        std::printf("  ! %s\n", f.text.c_str());
}

// Path findings as device-table entries, so `devices --json` stays one array of
// {kind, name, attrs}.
void addPathFindings(const std::vector<DeviceRecord>& devices, nlohmann::json& out) {
    for (const auto& f : PathSkew::judge(MultipathHeads::fromDevices(devices)).findings) {
        nlohmann::json attrs = {
            {"finding", PathSkew::kindName(f.kind)}, {"path", f.path}, {"text", f.text}};
        if (f.state)
            attrs["ana_state"] = *f.state;
        if (f.iopolicy)
            attrs["iopolicy"] = *f.iopolicy;
        out.push_back({{"kind", "path-finding"}, {"name", f.device}, {"attrs", attrs}});
    }
}

void printTable(const std::vector<DeviceRecord>& devices) {
    bool header = false;
    for (const auto& d : devices) {
        if (d.kind != "nvme-controller")
            continue;
        if (!header) {
            std::printf("NVMe controllers\n  %-8s %-9s %-24s %-8s %-20s %-16s %s\n", "NAME",
                        "TRANSPORT", "TRADDR", "TRSVCID", "MODEL", "SERIAL", "SUBSYSTEM NQN");
            header = true;
        }
        const auto a = nlohmann::json::parse(d.attrs);
        std::printf("  %-8s %-9s %-24s %-8s %-20.20s %-16.16s %s\n", d.name.c_str(),
                    field(a, "transport").c_str(), field(a, "traddr").c_str(),
                    field(a, "trsvcid").c_str(), field(a, "model").c_str(),
                    field(a, "serial").c_str(), field(a, "subsysnqn").c_str());
    }
    if (!header)
        std::printf("NVMe controllers\n  none found\n");
    std::printf("Block devices\n  %-12s %-10s %-12s %-10s %-13s %s\n", "NAME", "SIZE", "TRANSPORT",
                "PATH OF", "IN TOTAL", "MODEL");
    for (const auto& d : devices) {
        if (d.kind != "block")
            continue;
        const auto a = nlohmann::json::parse(d.attrs);
        const std::string size =
            a.contains("size_bytes") ? UnitFormat::bytes(a["size_bytes"].get<double>()) : "-";
        std::printf("  %-12s %-10s %-12s %-10s %-13s %s\n", d.name.c_str(), size.c_str(),
                    field(a, "transport").c_str(), field(a, "path_of").c_str(),
                    field(a, "in_total").c_str(), field(a, "model").c_str());
    }
    printMultipath(devices);
    std::printf("Backends\n");
    for (const auto& d : devices) {
        if (d.kind != "backend")
            continue;
        const auto a = nlohmann::json::parse(d.attrs);
        std::string line = field(a, "state");
        for (const char* key : {"reason", "detail"})
            if (a.contains(key))
                line += ": " + field(a, key);
        std::printf("  %-8s %s\n", d.name.c_str(), line.c_str());
    }
}

// `storage probe` results: the ceilings analyze and compare judge each device against.
void printProbes(const std::vector<DeviceRecord>& probes) {
    if (probes.empty())
        return;
    std::printf("Storage ceilings (storage probe)\n  %-20s %-11s %-11s %-11s %-10s %s\n", "NAME",
                "READ", "WRITE", "4K IOPS", "QD1 4K", "DIRECTORY");
    for (const auto& d : probes) {
        const auto a = nlohmann::json::parse(d.attrs, nullptr, false);
        if (!a.is_object())
            continue;
        auto number = [&](const char* key) {
            return a.contains(key) && a[key].is_number() ? a[key].get<double>() : 0.0;
        };
        char latency[32];
        std::snprintf(latency, sizeof latency, "%.1f us", number("unloaded_read_s") * 1e6);
        std::printf("  %-20s %-11s %-11s %-11.0f %-10s %s\n", d.name.c_str(),
                    UnitFormat::bytesPerSecond(number("read_bytes_per_s")).c_str(),
                    UnitFormat::bytesPerSecond(number("write_bytes_per_s")).c_str(),
                    number("random_read_iops"), latency, field(a, "dir").c_str());
        // The identity the ceiling follows when a reconnect gives the namespace a new name.
        if (field(a, "subsysnqn") != "-")
            std::printf("  %-20s NVMe %s nsid %s (%s)\n", "", field(a, "subsysnqn").c_str(),
                        field(a, "nsid").c_str(), field(a, "transport").c_str());
    }
}

// The latest probe of each device of this host in the workspace, if there is a workspace.
std::vector<DeviceRecord> storedProbes(const std::string& db) {
    std::error_code error;
    if (!std::filesystem::exists(db, error))
        return {};
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0)
        std::snprintf(host, sizeof host, "unknown");
    std::map<std::string, DeviceRecord> latest;
    try {
        Store store(db, Store::Mode::ReadOnly);
        for (const auto& session : store.sessions())
            if (session.host == host)
                for (const auto& d : store.devices(session.id))
                    if (d.kind == "storage-probe")
                        latest[d.name] = d;
    } catch (const std::exception&) {
        return {}; // an unreadable workspace does not stop the listing of this machine
    }
    std::vector<DeviceRecord> out;
    for (auto& [name, d] : latest)
        out.push_back(std::move(d));
    return out;
}

} // namespace

CLI::App* DevicesCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand(
        "devices",
        "List NVMe controllers, block devices and backends (this machine, or a session)");
    cmd->add_flag("--json", options.json, "Print JSON instead of tables");
    cmd->add_option("--session", options.session,
                    "Show what discovery found when session ID was recorded, instead of now");
    return cmd;
}

int DevicesCommand::run(const GlobalOptions& global, const Options& options) {
    std::vector<DeviceRecord> devices;
    if (options.session > 0) {
        auto store = WorkspaceOpener::openExisting(global.dbPath());
        if (!store->session(options.session))
            throw StoreError(StoreError::Code::NotFound, "no session " +
                                                             std::to_string(options.session) +
                                                             " in " + global.dbPath());
        devices = store->devices(options.session);
    } else {
        devices = MachineInventory::discover({}).devices;
        for (auto& d : storedProbes(global.dbPath()))
            devices.push_back(std::move(d));
    }
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& d : devices)
            out.push_back(
                {{"kind", d.kind}, {"name", d.name}, {"attrs", nlohmann::json::parse(d.attrs)}});
        addPathFindings(devices, out);
        std::cout << out.dump(2) << "\n";
    } else {
        printTable(devices);
        std::vector<DeviceRecord> probes;
        for (const auto& d : devices)
            if (d.kind == "storage-probe")
                probes.push_back(d);
        printProbes(probes);
    }
    return kExitOk;
}

} // namespace tierscope
