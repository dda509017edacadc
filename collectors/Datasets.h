#pragma once

#include "collectors/Conversation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// Prompt sets for the load generator. Synthetic prompts are made of plain English words, so
// their token count depends on the model's tokenizer (about 1-1.3 tokens a word); the stored
// prompt_tokens always come from the server's usage report.
class Datasets {
  public:
    static std::vector<Conversation> synthetic(int count, int inputMin, int inputMax,
                                               int outputTokens, std::uint64_t seed);
    // LMCache's multi-round QA pattern: `users` conversations sharing a `systemWords` system
    // prompt, `rounds` questions each, history carried forward.
    static std::vector<Conversation> sharedPrefix(int users, int systemWords, int rounds,
                                                  int questionWords, int outputTokens,
                                                  std::uint64_t seed);
    // One JSON object per line: {"prompt": "...", "max_tokens": N}, or a ShareGPT record
    // {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", ...}, ...]}.
    // Throws std::runtime_error naming the file and line on bad input.
    static std::vector<Conversation> jsonl(const std::string& path, int defaultOutputTokens);

    static std::string words(int count, std::uint64_t& state);
};

} // namespace tierscope
