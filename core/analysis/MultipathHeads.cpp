#include "core/analysis/MultipathHeads.h"

#include "core/store/Store.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::optional<std::string> text(const nlohmann::json& attrs, const char* key) {
    if (!attrs.contains(key) || !attrs[key].is_string() || attrs[key].get<std::string>().empty())
        return std::nullopt;
    return attrs[key].get<std::string>();
}

// A gauge sampled at the end of each interval holds that interval's rate: its integral over
// the intervals that end in the span (the first sample has no interval of its own there).
struct Integral {
    double sum = 0;
    std::int64_t ns = 0;
};

Integral integrate(const std::vector<Sample>& samples) {
    Integral out;
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const std::int64_t dt = samples[i].tNs - samples[i - 1].tNs;
        if (dt <= 0)
            continue;
        out.sum += samples[i].value * static_cast<double>(dt) / 1e9;
        out.ns += dt;
    }
    return out;
}

} // namespace

std::vector<PathSkew::Head> MultipathHeads::fromDevices(const std::vector<DeviceRecord>& devices) {
    std::map<std::string, PathSkew::Head> heads;
    std::map<std::string, std::string> headPolicies;
    for (const auto& d : devices) {
        if (d.kind != "block")
            continue;
        const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
        if (!attrs.is_object())
            continue;
        const auto head = text(attrs, "path_of");
        if (!head) {
            if (const auto policy = text(attrs, "iopolicy"))
                headPolicies[d.name] = *policy;
            continue;
        }
        PathSkew::Path p;
        p.name = d.name;
        p.anaState = text(attrs, "ana_state");
        p.transport = text(attrs, "transport").value_or("");
        p.address = text(attrs, "traddr").value_or("");
        if (const auto port = text(attrs, "trsvcid")) {
            // An IPv6 address gets brackets, so the port stays readable.
            if (p.address.find(':') != std::string::npos)
                p.address = "[" + p.address + "]";
            p.address += ":" + *port;
        }
        auto& h = heads[*head];
        h.name = *head;
        if (!h.iopolicy)
            h.iopolicy = text(attrs, "iopolicy");
        h.paths.push_back(std::move(p));
    }
    std::vector<PathSkew::Head> out;
    for (auto& [name, h] : heads) {
        // The head's own record names the subsystem's policy too; it wins if both exist.
        if (const auto it = headPolicies.find(name); it != headPolicies.end())
            h.iopolicy = it->second;
        std::sort(h.paths.begin(), h.paths.end(),
                  [](const auto& a, const auto& b) { return a.name < b.name; });
        out.push_back(std::move(h));
    }
    return out;
}

void MultipathHeads::addTraffic(std::vector<PathSkew::Head>& heads, Store& store,
                                std::int64_t sessionId, std::int64_t t0Ns, std::int64_t t1Ns) {
    std::map<std::string, std::int64_t> ids;
    for (const auto& m : store.metrics(sessionId))
        ids.emplace(m.descriptor.path, m.id);
    auto series = [&](const std::string& path) -> std::optional<Integral> {
        const auto it = ids.find(path);
        if (it == ids.end())
            return std::nullopt;
        const auto integral = integrate(store.readRaw(it->second, t0Ns, t1Ns));
        if (integral.ns <= 0)
            return std::nullopt;
        return integral;
    };
    for (auto& head : heads)
        for (auto& p : head.paths) {
            const std::string prefix = "block/" + p.name + "/";
            const auto read = series(prefix + "read_bytes_per_s");
            const auto written = series(prefix + "write_bytes_per_s");
            if (read && written)
                p.bytes = read->sum + written->sum;
            if (const auto qd = series(prefix + "queue_depth"))
                p.meanQueueDepth = qd->sum / (static_cast<double>(qd->ns) / 1e9);
        }
}

} // namespace tierscope
