#include "loadgen/SseParser.h"

namespace tierscope {

SseParser::SseParser(OnData onData, std::size_t maxLineBytes)
    : m_onData(std::move(onData)), m_maxLine(maxLineBytes) {}

bool SseParser::feed(std::string_view bytes) {
    if (!m_error.empty())
        return false;
    while (!bytes.empty()) {
        const auto newline = bytes.find('\n');
        if (newline == std::string_view::npos) {
            if (m_pending.size() + bytes.size() > m_maxLine) {
                m_error = "event-stream line longer than " + std::to_string(m_maxLine) + " bytes";
                return false;
            }
            m_pending.append(bytes);
            return true;
        }
        if (m_pending.size() + newline > m_maxLine) {
            m_error = "event-stream line longer than " + std::to_string(m_maxLine) + " bytes";
            return false;
        }
        std::string_view text = bytes.substr(0, newline);
        bytes.remove_prefix(newline + 1);
        if (!m_pending.empty()) { // the line began in an earlier read
            m_pending.append(text);
            text = m_pending;
        }
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        line(text);
        m_pending.clear();
    }
    return true;
}

bool SseParser::finish() {
    if (!m_error.empty())
        return false;
    if (!m_pending.empty())
        return false;
    line({}); // the closing blank line the server did not send
    return true;
}

void SseParser::line(std::string_view text) {
    if (text.empty()) { // blank line: dispatch the event
        if (m_hasData)
            m_onData(m_data);
        m_data.clear();
        m_hasData = false;
        return;
    }
    if (text.front() == ':')
        return; // comment / keep-alive
    const auto colon = text.find(':');
    const std::string_view field = text.substr(0, colon);
    std::string_view value =
        colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
    if (!value.empty() && value.front() == ' ')
        value.remove_prefix(1);
    if (field != "data")
        return; // event, id, retry: not used by OpenAI-style streams
    if (m_hasData)
        m_data += '\n';
    m_data.append(value);
    m_hasData = true;
}

} // namespace tierscope
