#include "core/LoadAccumulator.h"

#include <optional>

namespace tierscope {

namespace {

// Percentiles are reported in ms; a sketch holds seconds.
void describe(nlohmann::json& out, const std::string& metric, const QuantileSketch& s) {
    out["mean_" + metric + "_ms"] = s.mean() * 1000.0;
    out["median_" + metric + "_ms"] = s.percentile(50) * 1000.0;
    out["std_" + metric + "_ms"] = s.stddev() * 1000.0;
    out["p90_" + metric + "_ms"] = s.percentile(90) * 1000.0;
    out["p99_" + metric + "_ms"] = s.percentile(99) * 1000.0;
}

} // namespace

LoadAccumulator::LoadAccumulator(LoadSummary::Slo slo, std::size_t exactLimit)
    : m_slo(slo), m_ttft(exactLimit), m_ttftScheduled(exactLimit), m_tpot(exactLimit),
      m_itl(exactLimit), m_e2el(exactLimit) {}

void LoadAccumulator::add(const RequestRecord& r) {
    if (!r.ok() || !r.ttftS || !r.e2eS) {
        ++m_failed;
        return;
    }
    ++m_completed;
    m_inputTokens += r.promptTokens.value_or(0);
    const int out = r.outputTokens.value_or(0);
    m_outputTokens += out;
    m_ttft.add(*r.ttftS);
    if (r.ttftScheduledS)
        m_ttftScheduled.add(*r.ttftScheduledS);
    m_e2el.add(*r.e2eS);
    for (const double gap : r.itlS)
        m_itl.add(gap);
    std::optional<double> tpot;
    if (out > 1)
        tpot = (*r.e2eS - *r.ttftS) / (out - 1);
    if (tpot)
        m_tpot.add(*tpot);
    const bool meets = (!m_slo.ttftMs || *r.ttftS * 1000 <= *m_slo.ttftMs) &&
                       (!m_slo.tpotMs || tpot.value_or(0) * 1000 <= *m_slo.tpotMs) &&
                       (!m_slo.e2elMs || *r.e2eS * 1000 <= *m_slo.e2elMs);
    m_good += meets ? 1 : 0;
}

nlohmann::json LoadAccumulator::summary(double durationS, int maxConcurrent) const {
    const double d = durationS > 0 ? durationS : 1.0;
    nlohmann::json out = {{"duration", durationS},
                          {"completed", m_completed},
                          {"failed", m_failed},
                          {"total_input_tokens", m_inputTokens},
                          {"total_output_tokens", m_outputTokens},
                          {"request_throughput", m_completed / d},
                          {"output_throughput", m_outputTokens / d},
                          {"total_token_throughput", (m_inputTokens + m_outputTokens) / d},
                          {"max_concurrent_requests", maxConcurrent}};
    if (m_slo.ttftMs || m_slo.tpotMs || m_slo.e2elMs)
        out["request_goodput"] = m_good / d;
    describe(out, "ttft", m_ttft);
    describe(out, "tpot", m_tpot);
    describe(out, "itl", m_itl);
    describe(out, "e2el", m_e2el);
    if (m_ttftScheduled.count() > 0)
        describe(out, "ttft_from_scheduled", m_ttftScheduled);
    // Not a vLLM field: says when the percentiles came from the bounded sketch, and how close.
    for (const QuantileSketch* s : {&m_ttft, &m_ttftScheduled, &m_tpot, &m_itl, &m_e2el})
        if (!s->exact())
            out["percentile_relative_error"] = QuantileSketch::kRelativeError;
    return out;
}

} // namespace tierscope
