#include "loadgen/TracePrompts.h"

#include <algorithm>

namespace tierscope {

namespace {

// 64 words, so six bits of the generator pick one.
constexpr const char* kWords[64] = {
    "the",  "of",   "and",  "to",    "in",    "is",     "for",   "that", "with",  "on",   "as",
    "by",   "at",   "from", "this",  "be",    "are",    "was",   "it",   "or",    "an",   "not",
    "but",  "all",  "can",  "has",   "have",  "will",   "one",   "more", "new",   "time", "data",
    "file", "disk", "read", "write", "cache", "block",  "model", "user", "page",  "load", "node",
    "fast", "slow", "long", "short", "first", "last",   "next",  "same", "other", "each", "many",
    "some", "most", "over", "under", "after", "before", "while", "when", "where"};

std::uint64_t mix(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z != 0 ? z : 1; // xorshift never leaves zero
}

// Block texts and a prompt's own words come from separate streams of the seed.
constexpr std::uint64_t kBlockStream = 0x626c6f636bULL;
constexpr std::uint64_t kUniqueStream = 0x756e69717565ULL;

} // namespace

TracePrompts::TracePrompts(std::uint64_t seed, std::size_t cacheBytes)
    : m_seed(seed), m_cacheLimit(cacheBytes) {}

void TracePrompts::appendWords(std::string& out, int count, std::uint64_t state) {
    for (int i = 0; i < count; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if (!out.empty())
            out += ' ';
        out += kWords[state >> 58];
    }
}

void TracePrompts::appendPrefix(std::string& out, const std::string& text, int words) {
    // The end of the `words`-th word: a block's first words are a prefix of its text, so a
    // record's cut last block still shares its start with the whole block elsewhere.
    std::size_t end = 0;
    for (int w = 0; w < words && end < text.size(); ++w) {
        const auto space = text.find(' ', end == 0 ? 0 : end + 1);
        end = space == std::string::npos ? text.size() : space;
    }
    if (end == 0)
        return;
    if (!out.empty())
        out += ' ';
    out.append(text, 0, end);
}

const std::string& TracePrompts::fullBlock(std::int64_t id, int blockTokens) {
    if (const auto it = m_blocks.find(id); it != m_blocks.end()) {
        m_lru.splice(m_lru.begin(), m_lru, it->second.position);
        return it->second.text;
    }
    std::string text;
    text.reserve(static_cast<std::size_t>(blockTokens) * 6);
    appendWords(text, blockTokens,
                mix(m_seed ^ mix(kBlockStream + static_cast<std::uint64_t>(id))));
    while (!m_lru.empty() && m_cachedBytes + text.size() > m_cacheLimit) {
        const auto victim = m_blocks.find(m_lru.back());
        m_cachedBytes -= victim->second.text.size();
        m_blocks.erase(victim);
        m_lru.pop_back();
    }
    m_lru.push_front(id);
    m_cachedBytes += text.size();
    return m_blocks.emplace(id, Entry{std::move(text), m_lru.begin()}).first->second.text;
}

std::string TracePrompts::block(std::int64_t id, int blockTokens, int tokens) {
    std::string out;
    appendPrefix(out, fullBlock(id, blockTokens), std::min(tokens, blockTokens));
    return out;
}

std::string TracePrompts::prompt(const TraceRecord& r) {
    std::string out;
    out.reserve(static_cast<std::size_t>(r.inputTokens) * 6);
    int left = r.inputTokens;
    if (r.blockTokens > 0)
        for (const std::int64_t id : r.hashIds) {
            if (left <= 0)
                break;
            const int take = std::min(left, r.blockTokens);
            appendPrefix(out, fullBlock(id, r.blockTokens), take);
            left -= take;
        }
    if (left > 0)
        appendWords(out, left, mix(m_seed ^ mix(kUniqueStream + m_unique++)));
    return out;
}

} // namespace tierscope
