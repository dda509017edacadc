#include "core/stats/RequestDistribution.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tierscope {

namespace {

std::vector<double> finiteSorted(const std::vector<double>& values) {
    std::vector<double> out;
    out.reserve(values.size());
    for (const double v : values)
        if (std::isfinite(v))
            out.push_back(v);
    std::sort(out.begin(), out.end());
    return out;
}

// Linear interpolation between order statistics (type 7, R's default).
double quantileOfSorted(const std::vector<double>& x, double p) {
    const double pos = p * static_cast<double>(x.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    if (i + 1 >= x.size())
        return x.back();
    return x[i] + (pos - static_cast<double>(i)) * (x[i + 1] - x[i]);
}

// Silverman's robust bandwidth of sorted values; the sd alone where the IQR is 0.
double silvermanBandwidth(const std::vector<double>& x) {
    const double n = static_cast<double>(x.size());
    double mean = 0.0;
    for (const double v : x)
        mean += v / n;
    double ss = 0.0;
    for (const double v : x)
        ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / (n - 1.0));
    const double iqr = quantileOfSorted(x, 0.75) - quantileOfSorted(x, 0.25);
    const double spread = iqr > 0.0 ? std::min(sd, iqr / 1.34) : sd;
    return 0.9 * spread * std::pow(n, -0.2);
}

struct Grid {
    double lo = 0.0;
    double step = 0.0;
    std::vector<double> density; // unnormalised: only ratios are read
};

Grid kernelDensity(const std::vector<double>& x, double h) {
    constexpr std::size_t maxPoints = 65536;
    Grid g;
    g.lo = x.front() - 4.0 * h;
    const double span = x.back() + 4.0 * h - g.lo;
    g.step = h / 8.0;
    std::size_t points = static_cast<std::size_t>(std::ceil(span / g.step)) + 1;
    if (points > maxPoints) { // an extreme outlier: coarser, still bounded in time and memory
        points = maxPoints;
        g.step = span / static_cast<double>(points - 1);
    }
    // Linear binning first: the convolution then costs grid points times kernel width, not
    // values times kernel width, and at h / 8 the binning error is far below the noise.
    std::vector<double> counts(points, 0.0);
    for (const double v : x) {
        const double pos = std::clamp((v - g.lo) / g.step, 0.0, static_cast<double>(points - 1));
        const std::size_t j = std::min(static_cast<std::size_t>(pos), points - 2);
        const double frac = pos - static_cast<double>(j);
        counts[j] += 1.0 - frac;
        counts[j + 1] += frac;
    }
    const std::size_t half =
        std::min(points - 1, static_cast<std::size_t>(std::ceil(5.0 * h / g.step)));
    std::vector<double> kernel(half + 1);
    for (std::size_t k = 0; k <= half; ++k) {
        const double z = static_cast<double>(k) * g.step / h;
        kernel[k] = std::exp(-0.5 * z * z);
    }
    g.density.assign(points, 0.0);
    for (std::size_t j = 0; j < points; ++j) {
        if (counts[j] == 0.0)
            continue;
        const std::size_t from = j >= half ? j - half : 0;
        const std::size_t to = std::min(points - 1, j + half);
        for (std::size_t i = from; i <= to; ++i)
            g.density[i] += counts[j] * kernel[i > j ? i - j : j - i];
    }
    return g;
}

struct Peak {
    std::size_t at;
    double height;
    double mass; // values in the basin
};
struct Valley {
    std::size_t at;
    double height;
};

// Local maxima (the middle of a plateau) and the lowest point between each neighbouring pair
// (the middle of the lowest plateau: the empty stretch between two far clusters).
void findPeaksAndValleys(const std::vector<double>& d, std::vector<Peak>& peaks,
                         std::vector<Valley>& valleys) {
    const std::size_t n = d.size();
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j + 1 < n && d[j + 1] == d[i])
            ++j;
        const bool leftLower = i == 0 || d[i - 1] < d[i];
        const bool rightLower = j + 1 == n || d[j + 1] < d[i];
        if (leftLower && rightLower && d[i] > 0.0)
            peaks.push_back({(i + j) / 2, d[i], 0.0});
        i = j + 1;
    }
    for (std::size_t k = 0; k + 1 < peaks.size(); ++k) {
        const auto first = d.begin() + static_cast<std::ptrdiff_t>(peaks[k].at);
        const auto last = d.begin() + static_cast<std::ptrdiff_t>(peaks[k + 1].at);
        const auto lowest = std::min_element(first, last);
        auto end = lowest;
        while (end + 1 < last && *(end + 1) == *lowest)
            ++end;
        const std::size_t at = static_cast<std::size_t>(lowest - d.begin()) +
                               static_cast<std::size_t>(end - lowest) / 2;
        valleys.push_back({at, *lowest});
    }
}

// Removes valley k: peaks k and k + 1 become one, at the higher of the two.
void mergeAcross(std::vector<Peak>& peaks, std::vector<Valley>& valleys, std::size_t k) {
    Peak& keep = peaks[k];
    const Peak& other = peaks[k + 1];
    if (other.height > keep.height) {
        keep.at = other.at;
        keep.height = other.height;
    }
    keep.mass += other.mass;
    peaks.erase(peaks.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    valleys.erase(valleys.begin() + static_cast<std::ptrdiff_t>(k));
}

void mergeShallowDips(std::vector<Peak>& peaks, std::vector<Valley>& valleys) {
    constexpr double deepDip = 0.7;
    for (;;) {
        std::size_t worst = valleys.size();
        double worstRatio = deepDip;
        for (std::size_t k = 0; k < valleys.size(); ++k) {
            const double ratio = valleys[k].height / std::min(peaks[k].height, peaks[k + 1].height);
            if (ratio >= worstRatio) {
                worstRatio = ratio;
                worst = k;
            }
        }
        if (worst == valleys.size())
            return;
        mergeAcross(peaks, valleys, worst);
    }
}

void mergeSmallBasins(std::vector<Peak>& peaks, std::vector<Valley>& valleys, double minMass) {
    while (peaks.size() > 1) {
        std::size_t smallest = 0;
        for (std::size_t k = 1; k < peaks.size(); ++k)
            if (peaks[k].mass < peaks[smallest].mass)
                smallest = k;
        if (peaks[smallest].mass >= minMass)
            return;
        const bool hasLeft = smallest > 0;
        const bool hasRight = smallest + 1 < peaks.size();
        const bool left =
            hasLeft && (!hasRight || valleys[smallest - 1].height >= valleys[smallest].height);
        mergeAcross(peaks, valleys, left ? smallest - 1 : smallest);
    }
}

} // namespace

std::optional<double> RequestDistribution::cliffsDelta(const std::vector<double>& a,
                                                       const std::vector<double>& b) {
    const std::vector<double> sa = finiteSorted(a);
    const std::vector<double> sb = finiteSorted(b);
    if (sa.empty() || sb.empty())
        return std::nullopt;
    // Walking b upwards, `below` and `notAbove` count the a values < and <= the current b.
    std::int64_t greater = 0, less = 0;
    std::size_t below = 0, notAbove = 0;
    for (const double v : sb) {
        while (below < sa.size() && sa[below] < v)
            ++below;
        while (notAbove < sa.size() && sa[notAbove] <= v)
            ++notAbove;
        greater += static_cast<std::int64_t>(below);
        less += static_cast<std::int64_t>(sa.size() - notAbove);
    }
    return static_cast<double>(greater - less) /
           (static_cast<double>(sa.size()) * static_cast<double>(sb.size()));
}

std::vector<RequestDistribution::Mode> RequestDistribution::modes(const std::vector<double>& values,
                                                                  double minShare) {
    constexpr std::size_t fewest = 20;
    std::vector<double> x;
    x.reserve(values.size());
    for (const double v : values)
        if (std::isfinite(v) && v > 0.0)
            x.push_back(std::log(v));
    if (x.size() < fewest)
        return {};
    std::sort(x.begin(), x.end());
    const double n = static_cast<double>(x.size());

    const double h = silvermanBandwidth(x);
    if (!(h > 1e-9))
        return {{std::exp(quantileOfSorted(x, 0.5)), 1.0}};

    const Grid g = kernelDensity(x, h);
    std::vector<Peak> peaks;
    std::vector<Valley> valleys;
    findPeaksAndValleys(g.density, peaks, valleys);
    if (peaks.empty()) // cannot happen with a positive density, but never divide by nothing
        return {{std::exp(quantileOfSorted(x, 0.5)), 1.0}};
    auto position = [&](std::size_t i) { return g.lo + static_cast<double>(i) * g.step; };
    for (std::size_t k = 0; k < peaks.size(); ++k) {
        const auto from =
            k == 0 ? x.begin() : std::lower_bound(x.begin(), x.end(), position(valleys[k - 1].at));
        const auto to = k + 1 == peaks.size()
                            ? x.end()
                            : std::lower_bound(x.begin(), x.end(), position(valleys[k].at));
        peaks[k].mass = static_cast<double>(to - from);
    }

    mergeShallowDips(peaks, valleys);
    mergeSmallBasins(peaks, valleys, minShare * n);

    std::vector<Mode> out;
    for (const Peak& p : peaks) {
        double offset = 0.0;
        if (p.at > 0 && p.at + 1 < g.density.size()) {
            const double y0 = g.density[p.at - 1], y1 = g.density[p.at], y2 = g.density[p.at + 1];
            const double curvature = y0 - 2.0 * y1 + y2;
            if (curvature < 0.0)
                offset = std::clamp(0.5 * (y0 - y2) / curvature, -0.5, 0.5);
        }
        out.push_back({std::exp(position(p.at) + offset * g.step), p.mass / n});
    }
    return out;
}

} // namespace tierscope
