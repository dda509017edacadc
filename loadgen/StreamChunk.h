#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// What one event of an OpenAI-compatible completion stream says: the load generator's reading
// of an engine's chunk, as a pure function so the fuzzer can run the real thing.
//
// A chunk is a token chunk when it carries generated text: `text` (completions), or in a chat
// delta `content`, `reasoning_content` or `reasoning` (reasoning models stream their thinking
// there before the answer; vLLM's client counts those chunks as tokens). A chunk with a choice
// but no text (the role-only first chunk of a chat stream, an empty delta, a bare
// finish_reason) is no token: it neither starts TTFT nor adds an inter-token gap.
struct StreamChunk {
    bool done = false;     // data: [DONE]
    std::string text;      // the answer text of this chunk (content / text); empty if none
    std::string reasoning; // reasoning text of this chunk (chat only); empty if none
    std::optional<std::string> id;
    std::optional<int> promptTokens, outputTokens;
    std::string error; // the engine's error message, or why the event is unusable

    bool carriesText() const { return !text.empty() || !reasoning.empty(); }

    // `chat`: read choices[0].delta instead of choices[0].text. `idKnown`: the stream's id was
    // seen already, so a plain token chunk may take the fast path that skips building a JSON
    // document (token chunks are nearly all of a stream).
    static StreamChunk parse(std::string_view data, bool chat, bool idKnown);
};

} // namespace tierscope
