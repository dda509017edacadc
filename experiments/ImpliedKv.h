#pragma once

namespace tierscope {

// The KV a cold-recovery run's measured phase must bring back: its documents' prefix tokens x
// the model's KV bytes per token.
struct ImpliedKv {
    double bytes = 0;
    double tokens = 0;
    // "prompt_tokens": the engine's own counts of the populate phase (its usage chunks);
    // "words": the documents' nominal length, which a real tokenizer makes two to three times
    // as many tokens of.
    const char* from = "words";
};

} // namespace tierscope
