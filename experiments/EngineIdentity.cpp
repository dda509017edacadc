#include "experiments/EngineIdentity.h"

#include "collectors/engine/PrometheusTextParser.h"
#include "experiments/HttpProbe.h"
#include "experiments/PortHolder.h"

#include <cstdio>

namespace tierscope {

std::string EngineIdentity::baseUrl(const std::string& engineUrl) {
    const auto scheme = engineUrl.find("://");
    if (scheme == std::string::npos)
        return engineUrl;
    return engineUrl.substr(0, engineUrl.find('/', scheme + 3));
}

std::optional<double> EngineIdentity::processStartTime(std::string_view metricsText) {
    for (const auto& s : PrometheusTextParser::parse(metricsText).samples)
        if (s.name == "process_start_time_seconds")
            return s.value;
    return std::nullopt;
}

nlohmann::json EngineIdentity::probe(const std::string& engineUrl) {
    const std::string base = baseUrl(engineUrl);
    nlohmann::json out = {{"url", base}};
    const auto metrics = HttpProbe::get(base + "/metrics", std::chrono::seconds(10));
    if (metrics.status == 200)
        if (const auto start = processStartTime(metrics.body)) {
            out["source"] = "process_start_time_seconds";
            out["value"] = *start;
            return out;
        }
    const auto port = PortHolder::localPort(engineUrl);
    if (const auto holder = port ? PortHolder::holder(*port) : std::nullopt) {
        out["source"] = "listening_pid";
        out["value"] = holder->pid;
        out["cmdline"] = holder->cmdline;
        return out;
    }
    out["source"] = "unknown";
    out["reason"] = port ? "no process_start_time_seconds on /metrics, and the listening "
                           "process is not visible in /proc"
                         : "no process_start_time_seconds on /metrics, and the engine is remote";
    return out;
}

bool EngineIdentity::same(const nlohmann::json& a, const nlohmann::json& b) {
    const std::string source = a.value("source", "unknown");
    return source != "unknown" && source == b.value("source", "unknown") && a.contains("value") &&
           b.contains("value") && a["value"] == b["value"] &&
           a.value("url", "") == b.value("url", "");
}

std::string EngineIdentity::describe(const nlohmann::json& identity) {
    const std::string source = identity.value("source", "unknown");
    if (source == "process_start_time_seconds") {
        char text[64];
        std::snprintf(text, sizeof text, "process_start_time_seconds %.2f",
                      identity.value("value", 0.0));
        return text;
    }
    if (source == "listening_pid")
        return "pid " + std::to_string(identity.value("value", 0)) + " (" +
               identity.value("cmdline", "") + ")";
    return "unknown (" + identity.value("reason", "") + ")";
}

} // namespace tierscope
