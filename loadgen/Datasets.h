#pragma once

#include "loadgen/Conversation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// Prompt sets for the load generator. Synthetic prompts are made of plain English words, so
// their token count depends on the model's tokenizer (about 1-1.3 tokens a word); the stored
// prompt_tokens always come from the server's usage report.
//
// Every size is checked before anything is allocated: a value out of range, or sizes whose
// product exceeds kMaxDatasetWords, throw std::invalid_argument naming the limit.
class Datasets {
  public:
    static constexpr long long kMaxPromptWords = 1'000'000;    // one prompt or system prompt
    static constexpr long long kMaxDatasetWords = 100'000'000; // all prompts (~700 MB of text)
    static constexpr int kMaxRounds = 1000;
    static constexpr int kMaxUsers = 1'000'000;

    static std::vector<Conversation> synthetic(int count, int inputMin, int inputMax,
                                               int outputTokens, std::uint64_t seed);
    // LMCache's multi-round QA pattern: `users` conversations sharing a `systemWords` system
    // prompt, `rounds` questions each (1 to kMaxRounds), history carried forward.
    static std::vector<Conversation> sharedPrefix(int users, int systemWords, int rounds,
                                                  int questionWords, int outputTokens,
                                                  std::uint64_t seed);
    // The published "long-context cold recovery" pattern: `documents` long documents, each sent
    // once (populate: the engine computes and stores their KV), then `questions` questions per
    // document with the document as the prompt's prefix (measured: the KV comes back from the
    // KV store). The measured list goes round the documents, so requests in flight at once ask
    // about different documents.
    struct ColdRecovery {
        std::vector<Conversation> populate;
        std::vector<Conversation> measured;
    };
    static ColdRecovery coldRecovery(int documents, int documentWords, int questions,
                                     int questionWords, int outputTokens, std::uint64_t seed);
    // One JSON object per line: {"prompt": "...", "max_tokens": N}, or a ShareGPT record
    // {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", ...}, ...]}.
    // Throws std::runtime_error naming the file and line on bad input.
    static std::vector<Conversation> jsonl(const std::string& path, int defaultOutputTokens);

    static std::string words(int count, std::uint64_t& state);
};

} // namespace tierscope
