#pragma once

#include "core/model/MetricDescriptor.h"

namespace tierscope {

// A value a collector observed in one cycle. A value a source did not report is not a Reading.
struct Reading {
    MetricDescriptor metric;
    double value = 0.0;
};

} // namespace tierscope
