#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// What one event of an OpenAI-compatible completion stream says: the load generator's reading
// of an engine's chunk, as a pure function so the fuzzer can run the real thing.
struct StreamChunk {
    bool done = false; // data: [DONE]
    std::string text;  // this chunk's token text; empty for role-only and usage chunks
    std::optional<std::string> id;
    std::optional<int> promptTokens, outputTokens;
    std::string error; // the engine's error message, or why the event is unusable

    // `chat`: read choices[0].delta.content instead of choices[0].text. `idKnown`: the stream's
    // id was seen already, so a plain token chunk may take the fast path that skips building a
    // JSON document (token chunks are nearly all of a stream).
    static StreamChunk parse(std::string_view data, bool chat, bool idKnown);
};

} // namespace tierscope
