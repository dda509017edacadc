#include "loadgen/TraceSchedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tierscope {

namespace {

// Earliest on top; a tie goes to the earlier line, so equal times keep the file's order.
bool later(const TraceRecord& a, const TraceRecord& b) {
    return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : a.line > b.line;
}

TraceParser::Format formatOf(const std::string& name) {
    const auto f = TraceParser::format(name);
    if (!f)
        throw std::invalid_argument("the trace format is mooncake, bailian, azure or burstgpt, "
                                    "not \"" +
                                    name + "\"");
    return *f;
}

std::string seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", s);
    return text;
}

} // namespace

TraceSchedule::TraceSchedule(Options options)
    : m_options(std::move(options)), m_format(formatOf(m_options.format)),
      m_prompts(m_options.seed) {
    if (!(m_options.timeScale > 0) || !std::isfinite(m_options.timeScale))
        throw std::invalid_argument("the time scale must be a number above 0, such as 0.5 "
                                    "(twice as fast)");
    if (!(m_options.startAtS >= 0) || m_options.startAtS > 1e9)
        throw std::invalid_argument("the start must be a number of seconds of at least 0");
    if (m_options.maxRequests < 0)
        throw std::invalid_argument("the most requests must be at least 1 (0: all)");
    m_startAtNs = static_cast<std::int64_t>(std::llround(m_options.startAtS * 1e9));
    m_reader = std::make_unique<TraceReader>(m_options.path, m_format);
    m_peeked = admissible();
    if (!m_peeked)
        throw std::runtime_error("trace " + m_options.path + " holds no request to send (" +
                                 std::to_string(m_reader->lines()) + " lines read" + leftOut() +
                                 ")");
}

TraceSchedule::~TraceSchedule() = default;

std::optional<TraceRecord> TraceSchedule::earliest() {
    while (!m_readAll && m_window.size() < kReorderWindow) {
        auto record = m_reader->next();
        if (!record) {
            m_readAll = true;
            break;
        }
        ++m_records;
        m_window.push_back(std::move(*record));
        std::push_heap(m_window.begin(), m_window.end(), later);
    }
    if (m_window.empty())
        return std::nullopt;
    std::pop_heap(m_window.begin(), m_window.end(), later);
    TraceRecord r = std::move(m_window.back());
    m_window.pop_back();
    if (!m_origin)
        m_origin = r.timeNs;
    // Later than the window could put back in order: sent at once, after the one before.
    if (m_lastNs && r.timeNs < *m_lastNs) {
        r.timeNs = *m_lastNs;
        ++m_outOfOrder;
    }
    m_lastNs = r.timeNs;
    return r;
}

std::optional<TraceRecord> TraceSchedule::admissible() {
    while (auto r = earliest()) {
        if (r->timeNs - *m_origin < m_startAtNs) {
            ++m_beforeStart;
            continue;
        }
        if (r->inputTokens == 0) {
            ++m_withoutInput;
            continue;
        }
        return r;
    }
    return std::nullopt;
}

std::optional<RequestSchedule::Request> TraceSchedule::next() {
    if (m_options.maxRequests > 0 && m_scheduled >= m_options.maxRequests)
        return std::nullopt;
    auto record = m_peeked ? std::move(m_peeked) : admissible();
    m_peeked.reset();
    if (!record)
        return std::nullopt;
    if (record->outputTokens == 0)
        ++m_zeroOutput;
    const double traceNs = static_cast<double>(record->timeNs - *m_origin - m_startAtNs);
    Request out;
    out.offset = std::chrono::nanoseconds(std::max(
        m_lastOffsetNs, static_cast<std::int64_t>(std::llround(traceNs * m_options.timeScale))));
    m_lastOffsetNs = out.offset.count();
    out.conversation = {"", {m_prompts.prompt(*record)}, {std::max(1, record->outputTokens)}};
    ++m_scheduled;
    return out;
}

nlohmann::json TraceSchedule::report() const {
    nlohmann::json malformed = nlohmann::json::array();
    for (const auto& m : m_reader->malformed())
        malformed.push_back({{"line", m.line}, {"why", m.why}});
    return {{"path", m_options.path},
            {"format", TraceParser::name(m_format)},
            {"time_scale", m_options.timeScale},
            {"start_at_s", m_options.startAtS},
            {"max_requests", m_options.maxRequests > 0 ? nlohmann::json(m_options.maxRequests)
                                                       : nlohmann::json(nullptr)},
            {"lines_read", m_reader->lines()},
            {"records_read", m_records},
            {"scheduled", m_scheduled},
            {"malformed", m_reader->malformedCount()},
            {"malformed_lines", malformed},
            {"skipped_before_start", m_beforeStart},
            {"skipped_without_input", m_withoutInput},
            {"zero_output_sent_as_1", m_zeroOutput},
            {"out_of_order", m_outOfOrder},
            {"schedule_span_s", static_cast<double>(m_lastOffsetNs) / 1e9}};
}

std::string TraceSchedule::describe() const {
    std::string out = "trace " + m_options.path + " (" + TraceParser::name(m_format) +
                      "): " + std::to_string(m_scheduled) + " requests scheduled over " +
                      seconds(static_cast<double>(m_lastOffsetNs) / 1e9) + " from " +
                      std::to_string(m_reader->lines()) + " lines read";
    if (m_options.timeScale != 1.0) {
        char scale[48];
        std::snprintf(scale, sizeof scale, " (time scale %g)", m_options.timeScale);
        out += scale;
    }
    return out + leftOut();
}

std::string TraceSchedule::leftOut() const {
    std::string out;
    const auto& kept = m_reader->malformed();
    if (m_reader->malformedCount() > 0) {
        out += "; " + std::to_string(m_reader->malformedCount()) + " malformed lines skipped:";
        for (std::size_t i = 0; i < kept.size() && i < 5; ++i)
            out += (i ? ", line " : " line ") + std::to_string(kept[i].line) + " (" + kept[i].why +
                   ")";
        if (m_reader->malformedCount() > 5)
            out += ", ...";
    }
    if (m_beforeStart > 0)
        out += "; " + std::to_string(m_beforeStart) + " before the start";
    if (m_withoutInput > 0)
        out += "; " + std::to_string(m_withoutInput) +
               " without input tokens not sent (failed requests in the trace)";
    if (m_zeroOutput > 0)
        out += "; " + std::to_string(m_zeroOutput) + " of 0 output tokens sent with max_tokens 1";
    if (m_outOfOrder > 0)
        out += "; " + std::to_string(m_outOfOrder) +
               " out of time order beyond the read-ahead, sent after the one before";
    return out;
}

} // namespace tierscope
