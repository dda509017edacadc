#include "core/Bootstrap.h"

#include "core/LoadSummary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tierscope {

namespace {

std::uint64_t next(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void resample(const std::vector<double>& from, std::vector<double>& into, std::uint64_t& state) {
    into.resize(from.size());
    for (auto& v : into)
        v = from[next(state) % from.size()];
}

} // namespace

std::optional<Bootstrap::Interval> Bootstrap::difference(const std::vector<double>& a,
                                                         const std::vector<double>& b,
                                                         const Statistic& statistic,
                                                         std::uint64_t seed, int resamples,
                                                         double confidence) {
    if (a.size() < 2 || b.size() < 2 || resamples < 10)
        return std::nullopt;
    std::uint64_t state = seed;
    std::vector<double> differences;
    differences.reserve(static_cast<std::size_t>(resamples));
    std::vector<double> ra, rb;
    for (int i = 0; i < resamples; ++i) {
        resample(a, ra, state);
        resample(b, rb, state);
        differences.push_back(statistic(rb) - statistic(ra));
    }
    const double tail = (1.0 - confidence) / 2.0 * 100.0;
    return Interval{LoadSummary::percentile(differences, tail),
                    LoadSummary::percentile(differences, 100.0 - tail)};
}

Bootstrap::Statistic Bootstrap::mean() {
    return [](std::vector<double>& v) {
        return v.empty() ? 0.0
                         : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    };
}

Bootstrap::Statistic Bootstrap::percentile(double p) {
    return [p](std::vector<double>& v) {
        if (v.empty())
            return 0.0;
        // Linear interpolation between the two order statistics around rank p.
        const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(rank));
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
        const double low = v[lo];
        if (lo + 1 >= v.size())
            return low;
        const double high =
            *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
        return low + (rank - static_cast<double>(lo)) * (high - low);
    };
}

} // namespace tierscope
