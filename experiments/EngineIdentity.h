#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// Which engine process answered a run, so that a comparison can tell two engines from one
// engine left running across arms. Stored in the run's summary as "engine_identity":
//   {"source": "process_start_time_seconds", "value": 1764582000.12, "url": ...}  from /metrics
//   {"source": "listening_pid", "value": 4242, "cmdline": "...", "url": ...}     else, local port
//   {"source": "unknown", "reason": "...", "url": ...}
class EngineIdentity {
  public:
    // scheme://host:port of an engine URL: where /metrics and /v1/models live.
    static std::string baseUrl(const std::string& engineUrl);
    // process_start_time_seconds from a Prometheus text exposition; nullopt when absent.
    static std::optional<double> processStartTime(std::string_view metricsText);
    static nlohmann::json probe(const std::string& engineUrl);
    // Both known and equal: the same process.
    static bool same(const nlohmann::json& a, const nlohmann::json& b);
    static std::string describe(const nlohmann::json& identity); // "pid 42", ...
};

} // namespace tierscope
