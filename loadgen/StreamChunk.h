#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// What one event of an OpenAI-compatible completion stream says: the load generator's reading
// of an engine's chunk, as a pure function so the fuzzer can run the real thing.
//
// As vLLM's benchmark client (`vllm bench serve`, benchmarks/lib/endpoint_request_func.py)
// counts them, every chunk with a non-empty `choices` array is an arrival: the first one is the
// first token (TTFT), each later one adds an inter-token gap, and the last one ends the request,
// whether it carries text or not (vLLM's role-only first chunk of a chat stream, a reasoning
// delta, an empty finish chunk). A chunk without choices (the usage chunk) is none of these.
// Its text is `text` (completions), or in a chat delta `content`, with `reasoning_content` or
// `reasoning` apart (reasoning models stream their thinking there before the answer).
struct StreamChunk {
    bool choice = false;   // a non-empty choices array: an arrival
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
