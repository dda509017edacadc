#include "core/stats/PeakWindow.h"

#include <algorithm>
#include <map>

namespace tierscope {

namespace {

// The summed rate as a step function: at each breakpoint, the rate that holds until the next.
std::vector<std::pair<std::int64_t, double>> steps(const std::vector<std::vector<Sample>>& series,
                                                   std::optional<std::int64_t> origin) {
    std::map<std::int64_t, double> change; // rate change at each time
    for (const auto& s : series)
        for (std::size_t i = 0; i < s.size(); ++i) {
            const std::int64_t from = i > 0 ? s[i - 1].tNs : origin.value_or(s[i].tNs);
            if (s[i].tNs <= from)
                continue;
            change[from] += s[i].value;
            change[s[i].tNs] -= s[i].value;
        }
    std::vector<std::pair<std::int64_t, double>> out;
    double rate = 0;
    for (const auto& [t, delta] : change) {
        rate += delta;
        out.emplace_back(t, rate);
    }
    return out;
}

} // namespace

std::optional<double> PeakWindow::highestMean(const std::vector<std::vector<Sample>>& series,
                                              std::int64_t windowNs,
                                              std::optional<std::int64_t> originNs) {
    const auto f = steps(series, originNs);
    if (f.size() < 2)
        return std::nullopt;
    // integral[i]: the area from the first breakpoint up to breakpoint i.
    std::vector<double> integral(f.size(), 0.0);
    for (std::size_t i = 1; i < f.size(); ++i)
        integral[i] =
            integral[i - 1] + f[i - 1].second * static_cast<double>(f[i].first - f[i - 1].first);
    auto area = [&](std::int64_t t) {
        const auto it = std::upper_bound(f.begin(), f.end(), t,
                                         [](std::int64_t v, const auto& p) { return v < p.first; });
        const std::size_t i = static_cast<std::size_t>(it - f.begin()) - 1;
        return integral[i] + f[i].second * static_cast<double>(t - f[i].first);
    };
    const std::int64_t first = f.front().first, last = f.back().first;
    if (last - first <= windowNs)
        return integral.back() / static_cast<double>(last - first);
    // The window's mean is piecewise linear in its end time, so its maximum is where the
    // window's end or its start meets a breakpoint.
    double best = 0;
    bool any = false;
    for (const auto& [t, rate] : f)
        for (const std::int64_t end : {t, t + windowNs})
            if (end - windowNs >= first && end <= last) {
                const double mean =
                    (area(end) - area(end - windowNs)) / static_cast<double>(windowNs);
                best = any ? std::max(best, mean) : mean;
                any = true;
            }
    return best;
}

} // namespace tierscope
