// libFuzzer target: the SSE parser fed an engine's stream in arbitrary pieces, and each event's
// data parsed as the load generator parses a chunk. Must never crash or grow without bound.
#include "collectors/SseParser.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const std::size_t piece = 1 + data[0] % 64; // the network splits anywhere
    const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
    tierscope::SseParser parser(
        [](std::string_view event) {
            const auto chunk = nlohmann::json::parse(event, nullptr, false);
            if (chunk.is_object() && chunk.contains("choices") && chunk["choices"].is_array())
                for (const auto& c : chunk["choices"])
                    // Types are checked first, as the load generator does: json::value() throws
                    // on {"text": 0}, which this harness once did itself.
                    if (c.is_object() && c.contains("text") && c["text"].is_string())
                        (void)c["text"].get<std::string>();
        },
        4096);
    for (std::size_t at = 0; at < stream.size(); at += piece)
        if (!parser.feed(stream.substr(at, piece)))
            break;
    return 0;
}
