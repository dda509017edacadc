#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace tierscope {

// Incremental parser for text/event-stream: feed() the bytes as they arrive, in any split;
// each complete event's data (multi-line data joined with '\n') goes to the callback. A line
// longer than maxLineBytes stops the stream with an error instead of growing without bound.
class SseParser {
  public:
    using OnData = std::function<void(std::string_view data)>;

    explicit SseParser(OnData onData, std::size_t maxLineBytes = 1 << 20);

    // false once the stream is unusable (a line over the limit); error() says why.
    bool feed(std::string_view bytes);
    const std::string& error() const { return m_error; }
    // The end of the stream. An event whose data lines are whole but lack the closing blank
    // line is dispatched, as vLLM's client does; false when the last line was cut short, the
    // sign of a stream cut mid-event.
    bool finish();

  private:
    void line(std::string_view text);

    OnData m_onData;
    std::size_t m_maxLine;
    std::string m_pending; // the unfinished line
    std::string m_data;    // data lines of the current event
    bool m_hasData = false;
    std::string m_error;
};

} // namespace tierscope
