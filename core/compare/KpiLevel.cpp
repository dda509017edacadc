#include "core/compare/KpiLevel.h"

#include "core/stats/TInterval.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tierscope {

std::optional<KpiLevel> KpiLevel::of(const std::vector<double>& v) {
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); }))
        return std::nullopt;
    KpiLevel out;
    out.runs = v.size();
    out.geometric = std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0; });
    // Runs that agree keep their value exactly, as the comparison's means do.
    const bool same = std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
    if (!out.geometric) {
        out.estimate =
            same ? v.front()
                 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
        if (const auto t = TInterval::mean(v))
            out.interval = t->interval;
        return out;
    }
    std::vector<double> logs;
    for (const double x : v)
        logs.push_back(std::log(x));
    const double meanLog =
        std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
    out.estimate = same ? v.front() : std::exp(meanLog);
    if (const auto t = TInterval::mean(logs))
        out.interval = Interval{std::exp(t->interval.lo), std::exp(t->interval.hi)};
    return out;
}

} // namespace tierscope
