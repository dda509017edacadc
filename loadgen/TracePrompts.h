#pragma once

#include "loadgen/TraceRecord.h"

#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>

namespace tierscope {

// Prompt text for trace records, so that the reuse a trace recorded reaches the engine's
// prefix cache and its KV offload: a hash id always becomes the same words (drawn from the
// seed and the id), so records whose hash ids start alike start with identical text, and a
// record's prompt is its blocks in order. A later Bailian turn's hash ids begin with its
// parent's (the trace hashes the whole context), so it keeps the parent's prefix. Tokens the
// ids do not cover, and whole prompts of layouts without hash ids, are words no other prompt
// has.
//
// Words to tokens: one word is one token. The words are 64 common English words that are one
// token each, with their leading space, in the GPT-2 and cl100k byte-pair vocabularies (and
// the Llama 3 and Qwen vocabularies built from them), so a block of B tokens is B words and
// block boundaries fall on token boundaries: a 512-token Mooncake block shares exactly 512
// tokens, a multiple of every engine's block size. A tokenizer that splits a word makes the
// prompt longer than the trace said; the stored prompt_tokens are the server's count, always.
class TracePrompts {
  public:
    static constexpr std::size_t kDefaultCacheBytes = 8u << 20;

    // Blocks are kept (least recently used out) up to `cacheBytes` of text, so an id the
    // trace repeats costs a copy, not its words again.
    explicit TracePrompts(std::uint64_t seed, std::size_t cacheBytes = kDefaultCacheBytes);

    // The record's prompt: its blocks in order (the last one cut to the input length), then
    // words of its own up to the input length.
    std::string prompt(const TraceRecord& record);
    // The first `tokens` words of block `id`'s `blockTokens`.
    std::string block(std::int64_t id, int blockTokens, int tokens);

    std::size_t cachedBytes() const { return m_cachedBytes; }

  private:
    const std::string& fullBlock(std::int64_t id, int blockTokens);
    static void appendWords(std::string& out, int count, std::uint64_t state);
    static void appendPrefix(std::string& out, const std::string& text, int words);

    struct Entry {
        std::string text;
        std::list<std::int64_t>::iterator position;
    };
    std::uint64_t m_seed;
    std::size_t m_cacheLimit;
    std::size_t m_cachedBytes = 0;
    std::list<std::int64_t> m_lru; // most recently used first
    std::unordered_map<std::int64_t, Entry> m_blocks;
    std::uint64_t m_unique = 0; // how many prompts drew words of their own
};

} // namespace tierscope
