#pragma once

#include "core/model/RequestRecord.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// A `vllm bench serve --save-result` file as a tierscope run: its summary figures are kept
// exactly as vLLM wrote them, and with --save-detailed its per-request arrays (input_lens,
// output_lens, ttfts, itls, errors) become request rows.
struct VllmBenchImport {
    nlohmann::json summary; // every top-level scalar of the file, unchanged
    nlohmann::json params;  // model, rate, concurrency, prompts, backend, label
    std::vector<RequestRecord> requests;
    std::string model;
    std::string label;
    std::optional<std::int64_t> startNs; // from "date" (local time of the benchmark host)

    // What a value may be before the file is refused as damaged: a latency (TTFT, a gap, a
    // summary *_ms) of more than a day, a request of more tokens than any context holds, a
    // benchmark of more than 115 days (whose end would overflow nothing, but means nothing).
    static constexpr double kMaxLatencyS = 86400;
    static constexpr int kMaxTokens = 100'000'000;
    static constexpr double kMaxDurationS = 1e7;

    // Throws std::runtime_error with a one-line reason for anything that is not such a file,
    // or whose figures are not figures (a count as a string, a negative latency, a bad date).
    static VllmBenchImport parse(const std::string& text);
    // A file of one result, or JSON Lines with one result per line (as `vllm bench serve
    // --save-result --append-result` writes them). Throws naming the line of a bad one.
    static std::vector<VllmBenchImport> parseAll(const std::string& text);
};

} // namespace tierscope
