#include "workloads/WorkloadSummary.h"

#include "core/stats/LoadSummary.h"

#include <algorithm>
#include <numeric>

namespace tierscope {

nlohmann::json WorkloadSummary::common(const char* workload, const IoRunner::Result& result) {
    const double secs = result.seconds;
    auto rate = [secs](std::uint64_t bytes) {
        return secs > 0 ? static_cast<double>(bytes) / secs / 1e9 : 0.0;
    };
    nlohmann::json s = {{"workload", workload},
                        {"seconds", secs},
                        {"bytes_read", result.bytesRead},
                        {"bytes_written", result.bytesWritten},
                        {"read_gb_per_s", rate(result.bytesRead)},
                        {"write_gb_per_s", rate(result.bytesWritten)},
                        {"page_cache_bypassed", result.pageCacheBypassed()},
                        {"cancelled", result.cancelled}};
    if (!result.pageCacheBypassed())
        s["note"] = "page cache not bypassed: " + result.bufferedReason;
    return s;
}

nlohmann::json WorkloadSummary::distribution(const std::vector<double>& values) {
    if (values.empty())
        return nlohmann::json::object();
    const double sum = std::accumulate(values.begin(), values.end(), 0.0);
    return {{"count", values.size()},
            {"mean", sum / static_cast<double>(values.size())},
            {"p50", LoadSummary::percentile(values, 50)},
            {"p90", LoadSummary::percentile(values, 90)},
            {"p99", LoadSummary::percentile(values, 99)},
            {"min", *std::min_element(values.begin(), values.end())},
            {"max", *std::max_element(values.begin(), values.end())}};
}

} // namespace tierscope
