#include "ui/timeline/AxisTicks.h"

#include <algorithm>
#include <cmath>

namespace tierscope {

double AxisTicks::step(double span, int maxTicks) {
    if (!(span > 0) || !std::isfinite(span))
        return 1.0;
    const double raw = span / std::max(1, maxTicks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0})
        // A relative slack, so 4.0000000001 / 4 does not jump to the next step for rounding.
        if (m * magnitude >= raw * (1 - 1e-9))
            return m * magnitude;
    return 10 * magnitude;
}

double AxisTicks::top(double value, int maxTicks) {
    if (!(value > 0) || !std::isfinite(value))
        return 1.0;
    const double s = step(value, maxTicks);
    return std::ceil(value / s * (1 - 1e-9)) * s;
}

int AxisTicks::fitting(double axisPx, double labelPx, int maxTicks) {
    if (!(axisPx > 0) || !(labelPx > 0))
        return std::max(1, maxTicks); // not laid out yet
    const double labels = std::floor(axisPx / labelPx);
    return std::clamp(static_cast<int>(std::min(labels, 1e6)) - 1, 1, std::max(1, maxTicks));
}

int AxisTicks::decimals(double step) {
    if (!(step > 0) || !std::isfinite(step) || step >= 1)
        return 0;
    return static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
}

} // namespace tierscope
