#pragma once

#include "core/stats/LoadSummary.h"
#include "core/stats/QuantileSketch.h"
#include "core/model/RequestRecord.h"

#include <nlohmann/json.hpp>

namespace tierscope {

// Builds LoadSummary's vLLM-compatible result one request at a time, in bounded memory, so a
// load run can hand each finished request to the store and forget it.
//
// Absent is not zero: a figure nothing measured is null in the JSON. Token totals and what is
// derived from them (token throughputs, goodput under a TPOT SLO) are null as soon as one
// successful request did not report its count in a usage chunk, because a partial sum would
// read as a lower throughput; TPOT is taken over the requests that did report one. With no
// successful request, the latency figures are null.
class LoadAccumulator {
  public:
    explicit LoadAccumulator(LoadSummary::Slo slo = {},
                             std::size_t exactLimit = QuantileSketch::kDefaultExactLimit);

    void add(const RequestRecord& record);
    // `peakConcurrent`: the most measured requests in flight at once. `openLoop` (a rate or a
    // trace's schedule): the schedule error, each request's actual minus scheduled send, is
    // reported as schedule_error (mean, median, p90, p99, std in ms); a closed loop schedules
    // each request when it sends it, so there it would say nothing.
    nlohmann::json summary(double durationS, int peakConcurrent, bool openLoop = false) const;
    long requests() const { return m_completed + m_failed; }

  private:
    LoadSummary::Slo m_slo;
    long m_completed = 0, m_failed = 0, m_good = 0;
    long m_inputTokens = 0, m_outputTokens = 0;
    long m_inputUnknown = 0, m_outputUnknown = 0; // successful requests without the count
    QuantileSketch m_ttft, m_ttftScheduled, m_tpot, m_itl, m_e2el;
    QuantileSketch m_scheduleError; // every sent request's, failed ones too
};

} // namespace tierscope
