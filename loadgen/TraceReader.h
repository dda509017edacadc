#pragma once

#include "loadgen/TraceParser.h"
#include "loadgen/TraceRecord.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Reads a trace file one line at a time through TraceParser, so a trace of any size costs one
// read buffer and one line: a million-request file is never held. A malformed line is counted
// and skipped, and the first few are kept with their line numbers and reasons for the report;
// only what cannot be read at all (no file, a CSV file without its layout's header) throws.
class TraceReader {
  public:
    struct Malformed {
        std::int64_t line = 0;
        std::string why;
    };
    static constexpr std::size_t kKeptMalformed = 20;
    // Longer lines are malformed and skipped without being held (Bailian's longest records,
    // a million tokens in 16-token blocks, take about 0.6 MB).
    static constexpr std::size_t kMaxLineBytes = 16u << 20;

    // Throws std::runtime_error naming the file (and the header's line) when it cannot be read.
    TraceReader(const std::string& path, TraceParser::Format format);
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // The next well-formed record; nothing at the end of the file.
    std::optional<TraceRecord> next();

    std::int64_t lines() const { return m_lineNumber; }
    std::int64_t malformedCount() const { return m_malformedCount; }
    const std::vector<Malformed>& malformed() const { return m_malformed; } // the first few
    const std::string& path() const { return m_path; }

  private:
    // The next line without its newline; false at the end. `overlong`: it was longer than
    // kMaxLineBytes and `line` holds only its start.
    bool readLine(std::string& line, bool& overlong);
    bool fill();
    void reject(std::string why);

    std::string m_path;
    TraceParser::Format m_format;
    TraceParser::Columns m_columns;
    int m_fd = -1;
    std::vector<char> m_buffer;
    std::size_t m_begin = 0, m_end = 0;
    bool m_eof = false;
    std::int64_t m_lineNumber = 0;
    std::int64_t m_malformedCount = 0;
    std::vector<Malformed> m_malformed;
};

} // namespace tierscope
