#include "core/stats/LoadSummary.h"

#include "core/stats/LoadAccumulator.h"

#include <algorithm>
#include <cmath>
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

nlohmann::json LoadSummary::compute(const std::vector<RequestRecord>& records, double durationS,
                                    int peakConcurrent, const Slo& slo, bool openLoop) {
    LoadAccumulator accumulator(slo);
    for (const auto& r : records)
        accumulator.add(r);
    return accumulator.summary(durationS, peakConcurrent, openLoop);
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
