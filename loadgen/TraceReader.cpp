#include "loadgen/TraceReader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

namespace {

constexpr std::size_t kReadBytes = 1u << 20;

} // namespace

TraceReader::TraceReader(const std::string& path, TraceParser::Format format)
    : m_path(path), m_format(format), m_buffer(kReadBytes) {
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0)
        throw std::runtime_error("cannot read trace " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (fstat(m_fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(m_fd);
        throw std::runtime_error("cannot read trace " + path + ": it is a directory");
    }
    if (!TraceParser::csv(format))
        return;
    // A CSV layout is known by its header: the first line that is not blank.
    std::string line;
    bool overlong = false;
    while (readLine(line, overlong)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const auto header = overlong ? TraceParser::Header{std::nullopt, "a line too long"}
                                     : TraceParser::header(format, line);
        if (!header.columns) {
            ::close(m_fd);
            throw std::runtime_error(path + ":" + std::to_string(m_lineNumber) + ": " +
                                     header.error);
        }
        m_columns = *header.columns;
        return;
    }
    ::close(m_fd);
    throw std::runtime_error("trace " + path + " is empty: no " + TraceParser::name(format) +
                             " header");
}

TraceReader::~TraceReader() {
    if (m_fd >= 0)
        ::close(m_fd);
}

bool TraceReader::fill() {
    if (m_begin > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    for (;;) {
        const ssize_t got = ::read(m_fd, m_buffer.data() + m_end, m_buffer.size() - m_end);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            throw std::runtime_error("cannot read trace " + m_path + ": " + std::strerror(errno));
        m_eof = got == 0;
        m_end += static_cast<std::size_t>(got);
        return got > 0;
    }
}

bool TraceReader::readLine(std::string& line, bool& overlong) {
    line.clear();
    overlong = false;
    for (;;) {
        const char* start = m_buffer.data() + m_begin;
        const auto* newline = static_cast<const char*>(std::memchr(start, '\n', m_end - m_begin));
        const std::size_t take =
            newline ? static_cast<std::size_t>(newline - start) : m_end - m_begin;
        // Past the limit the rest of the line is skipped, never kept.
        if (!overlong) {
            const std::size_t room = kMaxLineBytes - line.size();
            line.append(start, std::min(take, room));
            overlong = take > room;
        }
        if (newline) {
            m_begin += take + 1;
            ++m_lineNumber;
            return true;
        }
        m_begin = m_end;
        if (m_eof || !fill()) {
            if (line.empty() && !overlong)
                return false;
            ++m_lineNumber; // a last line without its newline
            return true;
        }
    }
}

void TraceReader::reject(std::string why) {
    ++m_malformedCount;
    if (m_malformed.size() < kKeptMalformed)
        m_malformed.push_back({m_lineNumber, std::move(why)});
}

std::optional<TraceRecord> TraceReader::next() {
    std::string line;
    bool overlong = false;
    while (readLine(line, overlong)) {
        if (overlong) {
            reject("longer than " + std::to_string(kMaxLineBytes >> 20) + " MiB");
            continue;
        }
        auto parsed = TraceParser::parse(m_format, line, m_columns);
        if (parsed.record) {
            parsed.record->line = m_lineNumber;
            return std::move(parsed.record);
        }
        if (!parsed.error.empty())
            reject(std::move(parsed.error));
    }
    return std::nullopt;
}

} // namespace tierscope
