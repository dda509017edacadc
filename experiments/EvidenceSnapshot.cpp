#include "experiments/EvidenceSnapshot.h"

#include "collectors/base/SysfsReader.h"
#include "collectors/engine/PrometheusTextParser.h"
#include "collectors/host/MeminfoParser.h"
#include "collectors/host/ProcessIo.h"
#include "collectors/storage/BlockDeviceNames.h"
#include "collectors/storage/DiskstatsParser.h"
#include "core/engine/EngineMetricCatalog.h"
#include "experiments/EngineIdentity.h"
#include "experiments/HttpProbe.h"

#include <cmath>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace tierscope {

// Every counter role of the engine metric catalog, each from the first family the engine
// serves, summed over its label sets.
std::map<std::string, double> EvidenceSnapshot::counters(std::string_view metricsText) {
    const auto& catalog = EngineMetricCatalog::active();
    std::map<std::size_t, double> byFamily;
    for (const auto& s : PrometheusTextParser::parse(metricsText).samples)
        if (std::isfinite(s.value))
            for (const auto& [role, family] : catalog.entries(s.name, s.labels))
                if (role->type == "counter")
                    byFamily[family->id] += s.value;
    std::map<std::string, double> out;
    for (const auto& role : catalog.roles())
        for (const auto& family : role.families)
            if (const auto it = byFamily.find(family.id); it != byFamily.end()) {
                out[role.name] = it->second;
                break;
            }
    return out;
}

std::map<std::string, double> EvidenceSnapshot::delta(const std::map<std::string, double>& before,
                                                      const std::map<std::string, double>& after) {
    std::map<std::string, double> out;
    for (const auto& [name, value] : after)
        if (const auto it = before.find(name); it != before.end() && value >= it->second)
            out[name] = value - it->second;
    return out;
}

std::optional<double> EvidenceSnapshot::readDelta(const EvidenceSnapshot& before,
                                                  const EvidenceSnapshot& after) {
    if (!before.deviceReadBytes || !after.deviceReadBytes || before.device != after.device)
        return std::nullopt;
    const double head =
        static_cast<double>(*after.deviceReadBytes) - static_cast<double>(*before.deviceReadBytes);
    if (head > 0 || !before.pathsReadBytes || !after.pathsReadBytes)
        return head;
    return static_cast<double>(*after.pathsReadBytes) - static_cast<double>(*before.pathsReadBytes);
}

std::optional<double> EvidenceSnapshot::engineReadDelta(const EvidenceSnapshot& before,
                                                        const EvidenceSnapshot& after) {
    if (!before.engineReadBytes || !after.engineReadBytes ||
        before.enginePgid != after.enginePgid || *after.engineReadBytes < *before.engineReadBytes)
        return std::nullopt;
    return static_cast<double>(*after.engineReadBytes - *before.engineReadBytes);
}

void EvidenceSnapshot::addEngineIo(const EvidenceSnapshot& before, const EvidenceSnapshot& after,
                                   nlohmann::json& summary) {
    const auto read = engineReadDelta(before, after);
    if (!read)
        return;
    summary["engine_read_bytes"] = *read;
    if (after.engineWriteBytes && before.engineWriteBytes &&
        *after.engineWriteBytes >= *before.engineWriteBytes)
        summary["engine_write_bytes"] = *after.engineWriteBytes - *before.engineWriteBytes;
    const double duration = summary.value("duration", 0.0);
    if (duration > 0)
        summary["engine_read_gb_per_s"] = *read / duration / 1e9;
}

EvidenceSnapshot EvidenceSnapshot::take(const std::string& path, const std::string& engineUrl,
                                        const SystemPaths& paths, int enginePgid) {
    EvidenceSnapshot s;
    if (enginePgid > 0) {
        s.enginePgid = enginePgid;
        if (const auto io = ProcessIo::group(enginePgid, paths.proc)) {
            s.engineReadBytes = io->readBytes;
            s.engineWriteBytes = io->writeBytes;
            s.engineProcesses = io->processes;
        }
    }
    struct stat st {};
    if (path.empty()) {
        s.deviceWhy = "the arm has no path";
    } else if (::stat(path.c_str(), &st) != 0) {
        s.deviceWhy = "cannot stat " + path;
    } else if (major(st.st_dev) == 0) {
        s.deviceWhy = path + " is not on a block device (tmpfs, overlay, network or another "
                             "virtual filesystem), so /proc/diskstats cannot see its reads";
    } else {
        const auto disks = DiskstatsParser::parse(
            SysfsReader::readFile(paths.proc + "/diskstats").value_or(std::string()));
        for (const auto& d : disks)
            if (d.major == major(st.st_dev) && d.minor == minor(st.st_dev)) {
                s.device = d.name;
                s.deviceReadBytes = d.sectorsRead * 512;
            }
        if (s.device)
            for (const auto& d : disks)
                if (BlockDeviceNames::multipathHead(d.name) == *s.device)
                    s.pathsReadBytes = s.pathsReadBytes.value_or(0) + d.sectorsRead * 512;
        if (!s.device)
            s.deviceWhy = "device " + std::to_string(major(st.st_dev)) + ":" +
                          std::to_string(minor(st.st_dev)) + " of " + path +
                          " is not in /proc/diskstats";
    }
    const auto mem = MeminfoParser::parse(
        SysfsReader::readFile(paths.proc + "/meminfo").value_or(std::string()));
    if (const auto it = mem.find("Cached"); it != mem.end())
        s.pageCacheBytes = it->second;
    if (!engineUrl.empty()) {
        const auto answer = HttpProbe::get(EngineIdentity::baseUrl(engineUrl) + "/metrics",
                                           std::chrono::seconds(5));
        if (answer.status == 200)
            s.engineCounters = counters(answer.body);
    }
    return s;
}

} // namespace tierscope
