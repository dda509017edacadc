#include "core/LoadSummary.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace tierscope {

double LoadSummary::percentile(std::vector<double> values, double p) {
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const auto hi = static_cast<std::size_t>(std::ceil(rank));
    return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

namespace {

void describe(nlohmann::json& out, const std::string& metric, const std::vector<double>& seconds) {
    std::vector<double> ms;
    ms.reserve(seconds.size());
    for (const double s : seconds)
        ms.push_back(s * 1000.0);
    const double n = static_cast<double>(ms.size());
    const double mean = ms.empty() ? 0.0 : std::accumulate(ms.begin(), ms.end(), 0.0) / n;
    double var = 0;
    for (const double v : ms)
        var += (v - mean) * (v - mean);
    out["mean_" + metric + "_ms"] = mean;
    out["median_" + metric + "_ms"] = LoadSummary::percentile(ms, 50);
    out["std_" + metric + "_ms"] = ms.empty() ? 0.0 : std::sqrt(var / n);
    out["p90_" + metric + "_ms"] = LoadSummary::percentile(ms, 90);
    out["p99_" + metric + "_ms"] = LoadSummary::percentile(ms, 99);
}

} // namespace

nlohmann::json LoadSummary::compute(const std::vector<RequestRecord>& records, double durationS,
                                    int maxConcurrent, const Slo& slo) {
    std::vector<double> ttft, ttftScheduled, tpot, itl, e2el;
    long completed = 0, failed = 0, inputTokens = 0, outputTokens = 0, good = 0;
    for (const auto& r : records) {
        if (!r.ok() || !r.ttftS || !r.e2eS) {
            ++failed;
            continue;
        }
        ++completed;
        inputTokens += r.promptTokens.value_or(0);
        const int out = r.outputTokens.value_or(0);
        outputTokens += out;
        ttft.push_back(*r.ttftS);
        if (r.ttftScheduledS)
            ttftScheduled.push_back(*r.ttftScheduledS);
        e2el.push_back(*r.e2eS);
        itl.insert(itl.end(), r.itlS.begin(), r.itlS.end());
        std::optional<double> requestTpot;
        if (out > 1)
            requestTpot = (*r.e2eS - *r.ttftS) / (out - 1);
        if (requestTpot)
            tpot.push_back(*requestTpot);
        const bool meets = (!slo.ttftMs || *r.ttftS * 1000 <= *slo.ttftMs) &&
                           (!slo.tpotMs || requestTpot.value_or(0) * 1000 <= *slo.tpotMs) &&
                           (!slo.e2elMs || *r.e2eS * 1000 <= *slo.e2elMs);
        good += meets ? 1 : 0;
    }
    const double d = durationS > 0 ? durationS : 1.0;
    nlohmann::json out = {{"duration", durationS},
                          {"completed", completed},
                          {"failed", failed},
                          {"total_input_tokens", inputTokens},
                          {"total_output_tokens", outputTokens},
                          {"request_throughput", completed / d},
                          {"output_throughput", outputTokens / d},
                          {"total_token_throughput", (inputTokens + outputTokens) / d},
                          {"max_concurrent_requests", maxConcurrent}};
    if (slo.ttftMs || slo.tpotMs || slo.e2elMs)
        out["request_goodput"] = good / d;
    describe(out, "ttft", ttft);
    describe(out, "tpot", tpot);
    describe(out, "itl", itl);
    describe(out, "e2el", e2el);
    if (!ttftScheduled.empty())
        describe(out, "ttft_from_scheduled", ttftScheduled);
    return out;
}

std::optional<LoadSummary::Slo> LoadSummary::parseSlo(const std::string& text) {
    Slo slo;
    std::string spec = text;
    std::replace(spec.begin(), spec.end(), ',', ' ');
    std::istringstream in(spec);
    for (std::string item; in >> item;) {
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            return std::nullopt;
        double ms = 0;
        try {
            ms = std::stod(item.substr(colon + 1));
        } catch (...) {
            return std::nullopt;
        }
        const std::string key = item.substr(0, colon);
        if (key == "ttft")
            slo.ttftMs = ms;
        else if (key == "tpot")
            slo.tpotMs = ms;
        else if (key == "e2el")
            slo.e2elMs = ms;
        else
            return std::nullopt;
    }
    return slo;
}

} // namespace tierscope
