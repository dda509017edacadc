#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// One request of a production trace, as its file describes it, whatever the layout: when it
// arrived, how long its prompt and answer were, and (where the trace has them) the ids of its
// prompt's token blocks, equal ids meaning equal content.
struct TraceRecord {
    std::int64_t line = 0;   // where it is in its file, from 1
    std::int64_t timeNs = 0; // the trace's own clock: epoch (Azure) or trace-relative
    int inputTokens = 0;
    int outputTokens = 0;
    std::vector<std::int64_t> hashIds; // empty where the layout has none
    int blockTokens = 0;               // tokens per hash id (Mooncake 512, Bailian 16)
    // Bailian: the conversation, its parent turn (-1 for a first turn) and the turn number.
    std::int64_t chatId = -1;
    std::int64_t parentChatId = -1;
    int turn = 0;
    std::string type;  // Bailian's request type (text, search, image, file)
    std::string model; // BurstGPT's model (ChatGPT, GPT-4)
};

} // namespace tierscope
