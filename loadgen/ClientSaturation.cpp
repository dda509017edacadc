#include "loadgen/ClientSaturation.h"

#include <cstdio>

namespace tierscope {

namespace {

// "<prefix>_p50_ms" and "<prefix>_p99_ms" of a lag, when it was measured.
void putLag(nlohmann::json& out, const std::string& prefix, const QuantileSketch& lag) {
    if (lag.count() == 0)
        return;
    out[prefix + "_p50_ms"] = lag.percentile(50) * 1e3;
    out[prefix + "_p99_ms"] = lag.percentile(99) * 1e3;
}

} // namespace

std::optional<std::size_t> ClientSaturation::worstLoop(QuantileSketch Loop::*lag) const {
    std::optional<std::size_t> worst;
    for (std::size_t i = 0; i < loops.size(); ++i)
        if ((loops[i].*lag).count() > 0 &&
            (!worst || (loops[i].*lag).percentile(99) > (loops[*worst].*lag).percentile(99)))
            worst = i;
    return worst;
}

nlohmann::json ClientSaturation::toJson() const {
    if (loops.empty())
        return nullptr;
    nlohmann::json perLoop = nlohmann::json::array();
    double cpu = 0;
    for (const auto& l : loops) {
        nlohmann::json j = {{"requests", l.requests}, {"cpu_s", l.cpuS}};
        if (l.wallS > 0)
            j["cpu_share"] = l.cpuS / l.wallS;
        putLag(j, "read_lag", l.readLagS);
        putLag(j, "schedule_delay", l.sendLagS);
        cpu += l.cpuS;
        perLoop.push_back(std::move(j));
    }
    nlohmann::json out = {{"loops", loops.size()}, {"cpu_s", cpu}, {"per_loop", perLoop}};
    // The worst loop's figures: one saturated loop delays every stream it holds.
    if (const auto worst = worstLoop(&Loop::readLagS))
        putLag(out, "loop_lag", loops[*worst].readLagS);
    if (const auto worst = worstLoop(&Loop::sendLagS))
        putLag(out, "schedule_delay", loops[*worst].sendLagS);
    return out;
}

std::string ClientSaturation::describe(const nlohmann::json& client) {
    if (!client.is_object())
        return {};
    char line[360];
    std::string cpu;
    for (const auto& l : client.value("per_loop", nlohmann::json::array()))
        if (l.contains("cpu_share")) {
            std::snprintf(line, sizeof line, "%s%.0f %%", cpu.empty() ? "" : ", ",
                          l["cpu_share"].get<double>() * 100);
            cpu += line;
        }
    std::snprintf(line, sizeof line, "Client: %d event loop(s), CPU %s%s", client.value("loops", 0),
                  cpu.empty() ? "not measured" : cpu.c_str(), cpu.empty() ? "" : " of a core");
    std::string out = line;
    const auto lag = [&](const char* key, const char* name) {
        const auto p50 = client.find(std::string(key) + "_p50_ms");
        const auto p99 = client.find(std::string(key) + "_p99_ms");
        if (p50 == client.end() || p99 == client.end())
            return;
        std::snprintf(line, sizeof line, "; %s p50 %.3f ms, p99 %.3f ms", name, p50->get<double>(),
                      p99->get<double>());
        out += line;
    };
    lag("schedule_delay", "schedule delay");
    // The latencies use the kernel's receive timestamps, so this lag is not in them.
    lag("loop_lag", "read lag (outside the latencies)");
    out += client.contains("loop_lag_p99_ms") || client.contains("schedule_delay_p99_ms")
               ? " (worst loop)\n"
               : "\n";
    const auto delay = client.find("schedule_delay_p99_ms");
    if (delay != client.end() && delay->get<double>() > kSaturatedLagMs) {
        std::snprintf(line, sizeof line,
                      "warning: the client sent late: its event loops sent %.1f ms after the "
                      "schedule (p99, above %.0f ms), so the load offered and the TTFT from the "
                      "scheduled send carry the client's own delay, not only the server's (more "
                      "--client-threads, or a less loaded client machine)\n",
                      delay->get<double>(), kSaturatedLagMs);
        out += line;
    }
    return out;
}

} // namespace tierscope
