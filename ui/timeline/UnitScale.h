#pragma once

#include "core/view/ChartCatalog.h"

#include <QString>

namespace tierscope {

// Picks a display unit for a chart from its largest value, so axes read "2.5 GB/s" rather
// than "2500000000". Values are divided by `divisor` before plotting.
struct UnitScale {
    double divisor = 1.0;
    QString suffix;

    static UnitScale choose(ChartCatalog::Unit unit, double maxValue);
    QString format(double raw) const; // a raw value in the chosen unit, e.g. "1.25 GB/s"
};

} // namespace tierscope
