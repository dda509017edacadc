// libFuzzer target: the SSE parser fed an engine's stream in arbitrary pieces, and each event
// read by the load generator's own chunk reader (StreamChunk), completions or chat. Must never
// crash or grow without bound.
#include "loadgen/SseParser.h"
#include "loadgen/StreamChunk.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const std::size_t piece = 1 + data[0] % 64; // the network splits anywhere
    const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
    const bool chat = data[0] & 0x80;
    bool idKnown = false;
    tierscope::SseParser parser(
        [&](std::string_view event) {
            const auto chunk = tierscope::StreamChunk::parse(event, chat, idKnown);
            idKnown = idKnown || chunk.id.has_value();
        },
        4096);
    for (std::size_t at = 0; at < stream.size(); at += piece)
        if (!parser.feed(stream.substr(at, piece)))
            break;
    return 0;
}
