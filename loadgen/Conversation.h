#pragma once

#include <string>
#include <vector>

namespace tierscope {

// What the load generator sends: one or more rounds. Later rounds carry the earlier questions
// and the engine's answers forward, so a prefix cache can reuse their KV.
struct Conversation {
    std::string system;                 // shared system prompt, may be empty
    std::vector<std::string> questions; // one per round
    std::vector<int> maxTokens;         // one per round
};

} // namespace tierscope
