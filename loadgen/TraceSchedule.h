#pragma once

#include "loadgen/RequestSchedule.h"
#include "loadgen/TracePrompts.h"
#include "loadgen/TraceReader.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// A production trace replayed as a request schedule: each record is sent at its own time,
// relative to the trace's first request and multiplied by the time scale, with a prompt of its
// input length (TracePrompts: equal hash ids, equal text) and max_tokens its output length.
//
// The file streams: records are read as they are due, with a small window read ahead
// (kReorderWindow) that puts a trace whose lines are a little out of time order back in order;
// a record that comes later than that is sent at once, at the time of the one before it, and
// counted. So a trace of a million requests holds a few thousand at most.
//
// What the trace held that is not sent is counted in the report, never silent: malformed
// lines (with the first ones' line numbers and reasons), records before --start-at, records
// without input tokens (BurstGPT's failed requests), and records of 0 output tokens, which are
// sent with max_tokens 1, the least a server accepts.
class TraceSchedule : public RequestSchedule {
  public:
    struct Options {
        std::string path;
        std::string format;        // mooncake | bailian | azure | burstgpt
        double timeScale = 1.0;    // send offsets are the trace's offsets times this
        long long maxRequests = 0; // 0: the whole trace
        double startAtS = 0;       // skip the trace's first seconds (trace time, before scaling)
        std::uint64_t seed = 0;    // the words of the prompts
    };
    static constexpr std::size_t kReorderWindow = 4096;

    // Throws std::invalid_argument for options out of range, std::runtime_error when the file
    // cannot be read or holds no request to send (the message then says what it held).
    explicit TraceSchedule(Options options);
    ~TraceSchedule() override;

    std::optional<Request> next() override;

    long long scheduled() const { return m_scheduled; }
    std::size_t buffered() const { return m_window.size(); }
    // What was read, scheduled and left out, for the run's summary ("trace"). Scheduled: handed
    // to the load generator, which reads a few dozen ahead of the sends; a run stopped early
    // sent fewer (its issued_requests).
    nlohmann::json report() const;
    // The report in one line for the terminal.
    std::string describe() const;

  private:
    // The earliest record of the window, which is topped up first; nothing at the end.
    std::optional<TraceRecord> earliest();
    // The next record to send, after --start-at and the records that cannot be sent.
    std::optional<TraceRecord> admissible();
    // "; 2 malformed lines skipped: line 5 (...)" and the other records not sent.
    std::string leftOut() const;

    Options m_options;
    TraceParser::Format m_format;
    std::unique_ptr<TraceReader> m_reader;
    TracePrompts m_prompts;
    std::vector<TraceRecord> m_window; // a min-heap on (time, line)
    bool m_readAll = false;
    std::optional<TraceRecord> m_peeked; // read ahead to know the trace is not empty
    std::optional<std::int64_t> m_origin, m_lastNs;
    std::int64_t m_startAtNs = 0;
    long long m_records = 0, m_scheduled = 0, m_beforeStart = 0, m_withoutInput = 0;
    long long m_zeroOutput = 0, m_outOfOrder = 0;
    std::int64_t m_lastOffsetNs = 0;
};

} // namespace tierscope
