#pragma once

#include "core/model/RequestRecord.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The result of a load run with the field names and definitions of vLLM's `bench serve`, so
// figures compare one to one: percentiles interpolate linearly (numpy's default), std is the
// population standard deviation, TPOT is (e2e - ttft) / (output tokens - 1) per request, ITL
// pools every inter-chunk gap of every request, goodput counts requests that meet every SLO,
// max_concurrent_requests is the peak of measured requests in flight. Where vLLM would print
// 0 for what was not measured (no successful request, no usage chunk), the field is null.
class LoadSummary {
  public:
    struct Slo {
        std::optional<double> ttftMs, tpotMs, e2elMs;
    };

    // `openLoop`: report the schedule error too (LoadAccumulator::summary).
    static nlohmann::json compute(const std::vector<RequestRecord>& records, double durationS,
                                  int peakConcurrent, const Slo& slo = {}, bool openLoop = false);
    static double percentile(std::vector<double> values, double p);
    // "ttft:500 tpot:50" or "ttft:500,e2el:2000"; nullopt when malformed.
    static std::optional<Slo> parseSlo(const std::string& text);
};

} // namespace tierscope
