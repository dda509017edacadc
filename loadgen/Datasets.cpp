#include "loadgen/Datasets.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tierscope {

namespace {

constexpr const char* kWords[] = {
    "the",     "storage", "tier",      "holds",   "model",   "weights",   "and",
    "cache",   "blocks",  "for",       "every",   "request", "that",      "reads",
    "from",    "local",   "disk",      "or",      "remote",  "array",     "while",
    "kernels", "compute", "attention", "over",    "long",    "context",   "windows",
    "with",    "many",    "users",     "sharing", "prefix",  "tokens",    "across",
    "rounds",  "of",      "questions", "about",   "latency", "bandwidth", "queue"};

std::uint64_t next(std::uint64_t& s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

void inRange(const char* what, long long value, long long lo, long long hi) {
    if (value < lo || value > hi)
        throw std::invalid_argument(std::string(what) + " must be between " + std::to_string(lo) +
                                    " and " + std::to_string(hi) + ", not " +
                                    std::to_string(value));
}

// Prompts are built up front: refuse before allocating what cannot fit.
void withinTotal(long long words, const std::string& what) {
    if (words > Datasets::kMaxDatasetWords)
        throw std::invalid_argument(what + " make " + std::to_string(words) +
                                    " prompt words, more than the limit of " +
                                    std::to_string(Datasets::kMaxDatasetWords));
}

// Every seed its own stream: `seed | 1` gave seeds 2 and 3 (and 0 and 1) the same prompts, so
// a "new" run could be served from the engine's prefix cache.
std::uint64_t initialState(std::uint64_t seed) {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z != 0 ? z : 1; // xorshift never leaves zero
}

} // namespace

std::string Datasets::words(int count, std::uint64_t& state) {
    std::string out;
    for (int i = 0; i < count; ++i) {
        if (i)
            out += ' ';
        out += kWords[next(state) % (sizeof kWords / sizeof *kWords)];
    }
    return out;
}

std::vector<Conversation> Datasets::synthetic(int count, int inputMin, int inputMax,
                                              int outputTokens, std::uint64_t seed) {
    inRange("the number of prompts", count, 1, kMaxDatasetWords);
    inRange("the input length", inputMin, 0, kMaxPromptWords);
    inRange("the input length", inputMax, inputMin, kMaxPromptWords);
    inRange("the output length", outputTokens, 1, std::numeric_limits<int>::max());
    withinTotal(static_cast<long long>(count) * std::max(1, inputMax),
                std::to_string(count) + " prompts of up to " + std::to_string(inputMax) + " words");
    std::uint64_t state = initialState(seed);
    std::vector<Conversation> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const int span = std::max(0, inputMax - inputMin);
        const int length =
            inputMin +
            (span ? static_cast<int>(next(state) % static_cast<std::uint64_t>(span + 1)) : 0);
        out.push_back({"", {words(length, state)}, {outputTokens}});
    }
    return out;
}

std::vector<Conversation> Datasets::sharedPrefix(int users, int systemWords, int rounds,
                                                 int questionWords, int outputTokens,
                                                 std::uint64_t seed) {
    inRange("the number of users", users, 1, kMaxUsers);
    inRange("the system prompt length", systemWords, 0, kMaxPromptWords);
    inRange("the number of rounds", rounds, 1, kMaxRounds);
    inRange("the question length", questionWords, 0, kMaxPromptWords);
    inRange("the output length", outputTokens, 1, std::numeric_limits<int>::max());
    // Each conversation holds its own copy of the system prompt; "user N asks:" adds 3 words.
    withinTotal(static_cast<long long>(users) *
                    (systemWords + static_cast<long long>(rounds) * (questionWords + 3)),
                std::to_string(users) + " users of " + std::to_string(rounds) + " rounds");
    std::uint64_t state = initialState(seed);
    const std::string system = words(systemWords, state);
    std::vector<Conversation> out;
    for (int u = 0; u < users; ++u) {
        Conversation c{system, {}, {}};
        for (int r = 0; r < rounds; ++r) {
            c.questions.push_back("user " + std::to_string(u) +
                                  " asks: " + words(questionWords, state));
            c.maxTokens.push_back(outputTokens);
        }
        out.push_back(std::move(c));
    }
    return out;
}

Datasets::ColdRecovery Datasets::coldRecovery(int documents, int documentWords, int questions,
                                              int questionWords, int outputTokens,
                                              std::uint64_t seed) {
    inRange("the number of documents", documents, 1, kMaxUsers);
    inRange("the document length", documentWords, 1, kMaxPromptWords);
    inRange("the number of questions per document", questions, 1, kMaxRounds);
    inRange("the question length", questionWords, 0, kMaxPromptWords);
    inRange("the output length", outputTokens, 1, std::numeric_limits<int>::max());
    // Each measured conversation holds its own copy of its document.
    withinTotal(static_cast<long long>(documents) * (questions + 1) *
                    (documentWords + static_cast<long long>(questionWords) + 4),
                std::to_string(documents) + " documents of " + std::to_string(documentWords) +
                    " words with " + std::to_string(questions) + " questions each");
    std::uint64_t state = initialState(seed);
    std::vector<std::string> docs;
    for (int d = 0; d < documents; ++d) // "document N:" makes every prefix differ from the start
        docs.push_back("document " + std::to_string(d) + ": " +
                       words(std::max(0, documentWords - 2), state));
    ColdRecovery out;
    for (int d = 0; d < documents; ++d)
        out.populate.push_back(
            {docs[static_cast<std::size_t>(d)], {"summarize it."}, {outputTokens}});
    for (int q = 0; q < questions; ++q)
        for (int d = 0; d < documents; ++d)
            out.measured.push_back(
                {docs[static_cast<std::size_t>(d)],
                 {"question " + std::to_string(q) + ": " + words(questionWords, state)},
                 {outputTokens}});
    return out;
}

std::vector<Conversation> Datasets::jsonl(const std::string& path, int defaultOutputTokens) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read dataset " + path);
    std::vector<Conversation> out;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object())
            throw std::runtime_error(path + ":" + std::to_string(number) + ": not a JSON object");
        if (j.contains("prompt") && j["prompt"].is_string()) {
            out.push_back({"",
                           {j["prompt"].get<std::string>()},
                           {j.value("max_tokens", defaultOutputTokens)}});
            continue;
        }
        if (j.contains("conversations") && j["conversations"].is_array()) {
            Conversation c;
            for (const auto& turn : j["conversations"])
                if (turn.is_object() && turn.value("from", "") == "human" &&
                    turn.contains("value") && turn["value"].is_string()) {
                    c.questions.push_back(turn["value"].get<std::string>());
                    c.maxTokens.push_back(defaultOutputTokens);
                }
            if (!c.questions.empty())
                out.push_back(std::move(c));
            continue;
        }
        throw std::runtime_error(path + ":" + std::to_string(number) +
                                 ": needs \"prompt\" or \"conversations\"");
    }
    if (out.empty())
        throw std::runtime_error("dataset " + path + " holds no prompts");
    return out;
}

} // namespace tierscope
