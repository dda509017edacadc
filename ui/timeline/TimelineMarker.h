#pragma once

#include <QString>
#include <cstdint>

namespace tierscope {

// A note at a moment of a recording (Ctrl+M, a clock step, an experiment's step), drawn on
// every chart.
struct TimelineMarker {
    std::int64_t tNs = 0;
    QString text;
    // A step every run repeats (engine-start, engine-stop): a tick at the top of each plot with
    // its note as a tooltip. A session of twenty runs drew forty labelled lines over the data.
    bool routine = false;
};

} // namespace tierscope
