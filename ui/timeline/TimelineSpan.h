#pragma once

#include <QString>
#include <cstdint>

namespace tierscope {

// A stretch of a recording drawn on every chart: one run of an experiment or load (its arm,
// warm-up, validity), so the arms of a session can be told apart at a glance.
struct TimelineSpan {
    enum class Kind { Run, Warmup, Invalid };
    std::int64_t t0Ns = 0;
    std::int64_t t1Ns = 0;
    QString label; // "shm r2", "warm-up disk", "INVALID disk r1"
    QString group; // spans of one group (an arm) share a colour
    Kind kind = Kind::Run;
    qint64 runId = 0;
    QString detail; // the tooltip: workload, status, validity
};

} // namespace tierscope
