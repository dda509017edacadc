#include "core/stats/LoadAccumulator.h"

#include <algorithm>
#include <optional>

namespace tierscope {

namespace {

// Percentiles are reported in ms; a sketch holds seconds. Nothing measured: null, not 0.
void describe(nlohmann::json& out, const std::string& metric, const QuantileSketch& s) {
    const bool any = s.count() > 0;
    auto ms = [&](double seconds) { return any ? nlohmann::json(seconds * 1000.0) : nullptr; };
    out["mean_" + metric + "_ms"] = ms(s.mean());
    out["median_" + metric + "_ms"] = ms(s.percentile(50));
    out["std_" + metric + "_ms"] = ms(s.stddev());
    out["p90_" + metric + "_ms"] = ms(s.percentile(90));
    out["p99_" + metric + "_ms"] = ms(s.percentile(99));
}

} // namespace

LoadAccumulator::LoadAccumulator(LoadSummary::Slo slo, std::size_t exactLimit)
    : m_slo(slo), m_ttft(exactLimit), m_ttftScheduled(exactLimit), m_tpot(exactLimit),
      m_itl(exactLimit), m_e2el(exactLimit), m_scheduleError(exactLimit) {}

void LoadAccumulator::add(const RequestRecord& r) {
    // A request that failed was still sent when it was: the schedule's figure counts it. Never
    // negative: a request is sent once it is due.
    if (r.sendNs > 0 && r.scheduledNs > 0)
        m_scheduleError.add(
            static_cast<double>(std::max<std::int64_t>(0, r.sendNs - r.scheduledNs)) / 1e9);
    if (!r.ok() || !r.ttftS || !r.e2eS) {
        ++m_failed;
        return;
    }
    ++m_completed;
    if (r.promptTokens)
        m_inputTokens += *r.promptTokens;
    else
        ++m_inputUnknown;
    if (r.outputTokens)
        m_outputTokens += *r.outputTokens;
    else
        ++m_outputUnknown;
    m_ttft.add(*r.ttftS);
    if (r.ttftScheduledS)
        m_ttftScheduled.add(*r.ttftScheduledS);
    m_e2el.add(*r.e2eS);
    for (const double gap : r.itlS)
        m_itl.add(gap);
    // vLLM: (latency - ttft) / (output tokens - 1), only for requests of more than one token;
    // for goodput a request of one token counts as TPOT 0.
    std::optional<double> tpot;
    if (r.outputTokens && *r.outputTokens > 1)
        tpot = (*r.e2eS - *r.ttftS) / (*r.outputTokens - 1);
    if (tpot)
        m_tpot.add(*tpot);
    const bool meets = (!m_slo.ttftMs || *r.ttftS * 1000 <= *m_slo.ttftMs) &&
                       (!m_slo.tpotMs || tpot.value_or(0) * 1000 <= *m_slo.tpotMs) &&
                       (!m_slo.e2elMs || *r.e2eS * 1000 <= *m_slo.e2elMs);
    m_good += meets ? 1 : 0;
}

nlohmann::json LoadAccumulator::summary(double durationS, int peakConcurrent, bool openLoop) const {
    const bool timed = durationS > 0;
    auto perSecond = [&](double count, bool known) {
        return timed && known ? nlohmann::json(count / durationS) : nullptr;
    };
    const bool inputKnown = m_inputUnknown == 0, outputKnown = m_outputUnknown == 0;
    nlohmann::json out = {
        {"duration", durationS},
        {"completed", m_completed},
        {"failed", m_failed},
        {"total_input_tokens", inputKnown ? nlohmann::json(m_inputTokens) : nullptr},
        {"total_output_tokens", outputKnown ? nlohmann::json(m_outputTokens) : nullptr},
        {"request_throughput", perSecond(static_cast<double>(m_completed), true)},
        {"output_throughput", perSecond(static_cast<double>(m_outputTokens), outputKnown)},
        {"total_token_throughput",
         perSecond(static_cast<double>(m_inputTokens + m_outputTokens), inputKnown && outputKnown)},
        {"max_concurrent_requests", peakConcurrent},
        // Not vLLM fields: why token figures are null (successful requests without a count).
        {"requests_without_input_tokens", m_inputUnknown},
        {"requests_without_output_tokens", m_outputUnknown}};
    if (m_slo.ttftMs || m_slo.tpotMs || m_slo.e2elMs)
        // A TPOT SLO cannot be judged for a request whose token count is unknown.
        out["request_goodput"] =
            perSecond(static_cast<double>(m_good), !m_slo.tpotMs || outputKnown);
    describe(out, "ttft", m_ttft);
    describe(out, "tpot", m_tpot);
    describe(out, "itl", m_itl);
    describe(out, "e2el", m_e2el);
    if (m_ttftScheduled.count() > 0)
        describe(out, "ttft_from_scheduled", m_ttftScheduled);
    if (openLoop && m_scheduleError.count() > 0)
        describe(out, "schedule_error", m_scheduleError);
    // Not a vLLM field: says when the percentiles came from the bounded sketch, and how close.
    for (const QuantileSketch* s :
         {&m_ttft, &m_ttftScheduled, &m_tpot, &m_itl, &m_e2el, &m_scheduleError})
        if (!s->exact() && (s != &m_scheduleError || openLoop))
            out["percentile_relative_error"] = QuantileSketch::kRelativeError;
    return out;
}

} // namespace tierscope
