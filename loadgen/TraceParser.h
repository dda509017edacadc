#pragma once

#include "loadgen/TraceRecord.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// The public production-trace layouts, one line at a time, as pure functions (TraceReader does
// the file): each line gives a record or says why it is malformed, so a reader can count and
// skip it.
//   mooncake: Mooncake's FAST'25 traces (mooncake_trace.jsonl, conversation_trace.jsonl):
//     {"timestamp": ms, "input_length", "output_length", "hash_ids": [one per 512 tokens]}
//   bailian: Alibaba's Qwen-Bailian usage traces (qwen_traceA_blksz_16.jsonl): "chat_id",
//     "parent_chat_id" (-1 for a first turn), "timestamp" (s), "input_length",
//     "output_length", "type", "turn", "hash_ids" (one per 16 tokens)
//   azure: Azure's LLM inference traces 2023 and 2024 (AzureLLMInferenceTrace_*.csv):
//     TIMESTAMP (a date and time, 2023: "2023-11-16 18:15:46.6805900", 2024 with a UTC
//     offset), ContextTokens, GeneratedTokens
//   burstgpt: BurstGPT (BurstGPT_1.csv): Timestamp (s), Model, Request tokens, Response
//     tokens, Total tokens, Log Type
class TraceParser {
  public:
    enum class Format { Mooncake, Bailian, Azure, BurstGpt };

    // Tokens a record may ask for: one prompt is at most Datasets::kMaxPromptWords words.
    static constexpr int kMaxInputTokens = 1'000'000;
    static constexpr int kMaxOutputTokens = 10'000'000;

    static std::optional<Format> format(std::string_view name); // "mooncake", ...
    static const char* name(Format format);
    static bool csv(Format format) { return format == Format::Azure || format == Format::BurstGpt; }
    static int blockTokens(Format format); // tokens per hash id; 0 without hash ids

    // Where a CSV layout's columns are in a file's header, which may add columns of its own
    // (later BurstGPT releases add Session ID and Elapsed time) and order them as it likes.
    struct Columns {
        int timestamp = -1, input = -1, output = -1, model = -1;
        std::size_t count = 0;
    };
    struct Header {
        std::optional<Columns> columns;
        std::string error; // why the line is not this layout's header
    };
    static Header header(Format format, std::string_view line);

    // One line: a record, or the reason it is malformed; neither for a blank line. `columns`:
    // the header's, for a CSV layout (ignored for JSONL).
    struct Parsed {
        std::optional<TraceRecord> record;
        std::string error;
    };
    static Parsed parse(Format format, std::string_view line, const Columns& columns);

    // A date and time in ns since the epoch, UTC: "YYYY-MM-DD HH:MM:SS" (or a T between),
    // an optional fraction of 1 to 9 digits, an optional Z or +HH:MM / -HH:MM (+HHMM) offset;
    // without an offset, UTC. Nothing when malformed or out of range.
    static std::optional<std::int64_t> dateTimeNs(std::string_view text);
    // The fields of one CSV line (RFC 4180 quoting, "" inside quotes); nothing when a quote is
    // left open. A trailing carriage return is dropped.
    static std::optional<std::vector<std::string>> csvFields(std::string_view line);

  private:
    static Parsed json(std::string_view line, bool bailian);
    static Parsed csvRecord(Format format, std::string_view line, const Columns& columns);
};

} // namespace tierscope
