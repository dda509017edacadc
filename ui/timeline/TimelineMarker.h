#pragma once

#include <QString>
#include <cstdint>

namespace tierscope {

// A note the user added at a moment of a recording (Ctrl+M), drawn as a line on every chart.
struct TimelineMarker {
    std::int64_t tNs = 0;
    QString text;
};

} // namespace tierscope
