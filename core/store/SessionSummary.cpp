#include "core/store/SessionSummary.h"

#include "core/store/StoreError.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace tierscope {

SessionSummary SessionSummary::compute(Store& store, std::int64_t sessionId) {
    SessionSummary s;
    const auto info = store.session(sessionId);
    if (!info)
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(sessionId));
    s.session = *info;
    for (const auto& d : store.devices(sessionId)) {
        if (d.kind == "block")
            s.blockDevices.push_back(d.name);
        else if (d.kind == "nvme-controller")
            s.nvmeControllers.push_back(d.name);
        else if (d.kind == "backend") {
            const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
            std::string line = d.name + ": " + attrs.value("state", "unknown");
            for (const char* key : {"reason", "detail"})
                if (attrs.contains(key))
                    line += ": " + attrs.value(key, "");
            s.backends.push_back(line);
        }
    }

    std::map<std::string, DiskPeak> peaks;
    for (const auto& m : store.metrics(sessionId)) {
        ++s.metrics;
        const std::string& path = m.descriptor.path;
        if (path == "self/cpu_seconds_per_s") {
            if (const auto b = store.summarize(m.id); b.count > 0)
                s.selfCpuMean = b.mean();
            continue;
        }
        if (!path.starts_with("block/"))
            continue;
        const auto slash = path.find('/', 6);
        const std::string device = path.substr(6, slash - 6);
        const std::string what = path.substr(slash + 1);
        if (what != "read_bytes_per_s" && what != "write_bytes_per_s")
            continue;
        const auto b = store.summarize(m.id);
        if (b.count == 0)
            continue;
        DiskPeak& peak = peaks[device];
        peak.device = device;
        const auto labels = nlohmann::json::parse(m.descriptor.labels, nullptr, false);
        if (labels.is_object() && labels.contains("transport"))
            peak.transport = labels.value("transport", "");
        (what == "read_bytes_per_s" ? peak.readBytesPerS : peak.writeBytesPerS) = b.max;
    }
    s.samples = store.sampleCount(sessionId);
    for (auto& [device, peak] : peaks)
        if (device != "total")
            s.diskPeaks.push_back(peak);
    std::sort(s.diskPeaks.begin(), s.diskPeaks.end(), [](const DiskPeak& a, const DiskPeak& b) {
        return a.readBytesPerS.value_or(0) + a.writeBytesPerS.value_or(0) >
               b.readBytesPerS.value_or(0) + b.writeBytesPerS.value_or(0);
    });
    if (const auto it = peaks.find("total"); it != peaks.end())
        s.diskPeaks.push_back(it->second);
    return s;
}

} // namespace tierscope
