#pragma once

#include <cstdint>

namespace tierscope {

// Aggregate of the samples of one series that fall in [tNs, tNs + widthNs).
struct Bucket {
    std::int64_t tNs = 0;
    std::int64_t widthNs = 0;
    double min = 0.0;
    double max = 0.0;
    double sum = 0.0;
    std::int64_t count = 0;

    double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }
    void add(double v) { merge(v, v, v, 1); }
    void merge(double mn, double mx, double s, std::int64_t n) {
        if (count == 0) {
            min = mn;
            max = mx;
        } else {
            min = mn < min ? mn : min;
            max = mx > max ? mx : max;
        }
        sum += s;
        count += n;
    }
};

} // namespace tierscope
