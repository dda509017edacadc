#pragma once

#include "core/LoadSummary.h"
#include "core/QuantileSketch.h"
#include "core/RequestRecord.h"

#include <nlohmann/json.hpp>

namespace tierscope {

// Builds LoadSummary's vLLM-compatible result one request at a time, in bounded memory, so a
// load run can hand each finished request to the store and forget it.
class LoadAccumulator {
  public:
    explicit LoadAccumulator(LoadSummary::Slo slo = {},
                             std::size_t exactLimit = QuantileSketch::kDefaultExactLimit);

    void add(const RequestRecord& record);
    nlohmann::json summary(double durationS, int maxConcurrent) const;
    long requests() const { return m_completed + m_failed; }

  private:
    LoadSummary::Slo m_slo;
    long m_completed = 0, m_failed = 0, m_good = 0;
    long m_inputTokens = 0, m_outputTokens = 0;
    QuantileSketch m_ttft, m_ttftScheduled, m_tpot, m_itl, m_e2el;
};

} // namespace tierscope
