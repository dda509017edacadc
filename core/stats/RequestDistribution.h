#pragma once

#include <optional>
#include <vector>

namespace tierscope {

// Descriptive figures over pooled requests (not independent: requests share their run), for
// what a run-level mean hides: which side is faster in most requests, and a second mode.
// Neither carries a p-value: with requests clustered in runs, one would overstate the evidence.
struct RequestDistribution {
    // Cliff's delta of b against a: P(b > a) - P(b < a) over all pairs, in [-1, 1]. O((n+m)
    // log(n+m)) (sort and merge; it must handle 100,000 values per side quickly), ties count half.
    // nullopt when either side has no finite value. Non-finite values are ignored.
    static std::optional<double> cliffsDelta(const std::vector<double>& a,
                                             const std::vector<double>& b);
    struct Mode {
        double at = 0.0;    // where the density peaks, in the values' unit
        double share = 0.0; // the fraction of the values in this mode's basin
    };
    // The modes of a sample of positive values (a latency), found on the log scale: a Gaussian
    // kernel density (bandwidth by Silverman's rule, robust form 0.9 * min(sd, IQR/1.34) * n^-1/5)
    // on a fine grid; a local maximum is a mode only if its basin (between the neighbouring
    // density minima) holds >= minShare of the values and the dip between it and its neighbour
    // is deep (the valley below ~70 % of the lower peak), else neighbouring maxima merge.
    // Sorted by `at`. Empty with fewer than 20 positive finite values (no claim from too few).
    //
    // The rules in full:
    // - Zero, negative and non-finite values are dropped; `share` is a fraction of the rest.
    // - Bandwidth h = 0.9 * min(sd, IQR / 1.34) * n^-1/5 of the logs; where the IQR is 0 (over
    //   half the values tied) the sd alone. Where h is 0 too (all values equal, to a relative
    //   1e-9), one mode at their median with share 1: a sample of equal latencies has one mode.
    // - The density is binned linearly onto a grid of step h / 8 (at most 65,536 points) over
    //   the logs' range widened by 4 h each side, and convolved with the kernel cut at 5 h.
    // - Every local maximum starts as a candidate, its basin bounded by the lowest density
    //   between it and each neighbouring maximum.
    // - Merge 1, shallow dips: while some valley is >= 0.7 of the lower of its two peaks,
    //   the shallowest of them (highest valley / lower peak) is removed, its two basins merge,
    //   and the merged mode sits at the higher peak.
    // - Merge 2, small basins: while some basin holds < minShare of the values, the smallest
    //   merges across its higher (shallower) valley into its neighbour, again at the higher
    //   peak. Merging only removes valleys and raises peaks, so merge 2 never makes a dip
    //   shallow again and the two passes suffice.
    // - `at` is the peak refined by a parabola through its grid point and two neighbours.
    static std::vector<Mode> modes(const std::vector<double>& values, double minShare = 0.05);
};

} // namespace tierscope
