#pragma once

namespace tierscope {

// Axis ticks on round numbers: a step of 1, 2 or 5 times a power of ten, anchored at zero, so
// the labels read 0/20/40/60 rather than 0/22/43/65/87 and stay put while a live axis scrolls.
class AxisTicks {
  public:
    // The smallest 1-2-5 step that puts at most `maxTicks` intervals across `span`; 1 for an
    // empty or invalid span.
    static double step(double span, int maxTicks);
    // The smallest multiple of step(value, maxTicks) at or above `value`: a y axis top whose
    // ticks all land on round numbers; 1 for nothing to show.
    static double top(double value, int maxTicks);
    // How many intervals (1 to maxTicks) a value axis `axisPx` tall can label: QtCharts elides
    // a label taller than the axis' height over the number of labels less its padding, and
    // writes "..." instead of the number.
    static int fitting(double axisPx, double labelPx, int maxTicks);
    // Decimal places that tell ticks `step` apart (0 for a step of 1 or more, 1 for 0.5, ...).
    static int decimals(double step);
};

} // namespace tierscope
