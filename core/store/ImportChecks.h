#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The rules every importer holds a figure to, so a damaged or edited file is refused with a
// reason in the user's terms ("\"read\".\"iops\" is \"12\", not a figure ...") instead of
// being stored as a number it is not. Every refusal throws std::runtime_error.
class ImportChecks {
  public:
    // As for `vllm bench serve` files: a latency of more than a day, a request of more tokens
    // than any context holds, means a damaged file, not a measurement.
    static constexpr double kMaxLatencyS = 86400;
    static constexpr int kMaxTokens = 100'000'000;

    [[noreturn]] static void refuse(const std::string& why);
    // A value as the user would find it in the file, cut at 40 characters.
    static std::string shown(const nlohmann::json& v);

    // The member `key` of an object; nullptr when absent or JSON null (absent, not zero).
    static const nlohmann::json* member(const nlohmann::json& object, const char* key);
    // A finite number between 0 and `max`, or refused naming `what`.
    static double figure(const nlohmann::json& v, const std::string& what, double max = HUGE_VAL);
    // A whole number of 0 or more (a count fio or a tool writes as an integer).
    static std::uint64_t count(const nlohmann::json& v, const std::string& what);
    // A token count: whole, 0 to kMaxTokens.
    static int tokens(const nlohmann::json& v, const std::string& what);
    // A latency `v` in `unit` ("ns", "us", "ms", "sec", "s") as seconds within a day; an
    // unknown unit is refused, never guessed.
    static double seconds(const nlohmann::json& v, const std::string& unit,
                          const std::string& what);
    // "ns", "us", "ms", "sec", "s": how many make a second (1e9 ... 1); nullopt for any other.
    // Seconds are value / this: a division by a power of ten rounds once, so 47.25 ms reads
    // back as exactly 47.25 / 1000.
    static std::optional<double> perSecond(const std::string& unit);

    // A whole JSON document: "empty" or "not JSON: parse error at line 3, column 5: ..." when
    // it is not one. `discard` names keys whose values are dropped while parsing wherever they
    // lie inside a member named `under` (the prompts and answers of a report's requests), so
    // a large report costs its figures, not its text.
    static nlohmann::json document(const std::string& text, const std::string& under = {},
                                   const std::vector<std::string>& discard = {});
};

} // namespace tierscope
