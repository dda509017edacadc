#pragma once

#include "core/model/RequestRecord.h"

#include <cstdint>
#include <nlohmann/json.hpp>
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

    // Throws std::runtime_error with a one-line reason for anything that is not such a file.
    static VllmBenchImport parse(const std::string& text);
    // A file of one result, or JSON Lines with one result per line (as `vllm bench serve
    // --save-result --append-result` writes them). Throws naming the line of a bad one.
    static std::vector<VllmBenchImport> parseAll(const std::string& text);
};

} // namespace tierscope
