#include "loadgen/TraceParser.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool blank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A whole number from `lo` to `hi` in JSON: an integer, or a float with no fraction (a
// converter's 42.0); nothing else.
std::optional<std::int64_t> wholeNumber(const nlohmann::json& v, std::int64_t lo, std::int64_t hi) {
    std::int64_t n = 0;
    if (v.is_number_integer())
        n = v.get<std::int64_t>();
    else if (v.is_number_float() && std::isfinite(v.get<double>()) &&
             v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9e18)
        n = static_cast<std::int64_t>(v.get<double>());
    else
        return std::nullopt;
    if (n < lo || n > hi)
        return std::nullopt;
    return n;
}

std::optional<std::int64_t> wholeNumber(std::string_view text, std::int64_t lo, std::int64_t hi) {
    text = trimmed(text);
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || n < lo || n > hi)
        return std::nullopt;
    return n;
}

// Seconds (or ms) as a count of ns; nothing for a negative, non-finite or over-a-century time.
std::optional<std::int64_t> toNs(double value, double nsPerUnit) {
    const double ns = value * nsPerUnit;
    if (!std::isfinite(ns) || ns < 0 || ns > 3.2e18)
        return std::nullopt;
    return static_cast<std::int64_t>(std::llround(ns));
}

std::optional<double> decimal(std::string_view text) {
    text = trimmed(text);
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return v;
}

std::string tokenRange(const char* key, int max) {
    return std::string(key) + " must be a whole number from 0 to " + std::to_string(max);
}

// Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// `count` digits at `at` as a number; false when any is not a digit.
bool digits(std::string_view s, std::size_t at, std::size_t count, int& out) {
    if (at + count > s.size())
        return false;
    out = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

} // namespace

std::optional<TraceParser::Format> TraceParser::format(std::string_view name) {
    for (const Format f : {Format::Mooncake, Format::Bailian, Format::Azure, Format::BurstGpt})
        if (name == TraceParser::name(f))
            return f;
    return std::nullopt;
}

const char* TraceParser::name(Format format) {
    switch (format) {
    case Format::Mooncake:
        return "mooncake";
    case Format::Bailian:
        return "bailian";
    case Format::Azure:
        return "azure";
    case Format::BurstGpt:
        return "burstgpt";
    }
    return "";
}

int TraceParser::blockTokens(Format format) {
    // Mooncake's hash ids are per 512-token block (its README and AIPerf's loader); Bailian's
    // file names say blksz_16 and its README "16 tokens per block".
    return format == Format::Mooncake ? 512 : format == Format::Bailian ? 16 : 0;
}

std::optional<std::vector<std::string>> TraceParser::csvFields(std::string_view line) {
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                out.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                out.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    if (quoted)
        return std::nullopt;
    return out;
}

std::optional<std::int64_t> TraceParser::dateTimeNs(std::string_view s) {
    s = trimmed(s);
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (s.size() < 19 || !digits(s, 0, 4, year) || s[4] != '-' || !digits(s, 5, 2, month) ||
        s[7] != '-' || !digits(s, 8, 2, day) || (s[10] != ' ' && s[10] != 'T') ||
        !digits(s, 11, 2, hour) || s[13] != ':' || !digits(s, 14, 2, minute) || s[16] != ':' ||
        !digits(s, 17, 2, second))
        return std::nullopt;
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (year < 1970 || month < 1 || month > 12 || day < 1 ||
        day > kDays[month - 1] + (month == 2 && leap(year) ? 1 : 0) || hour > 23 || minute > 59 ||
        second > 59)
        return std::nullopt;
    std::size_t at = 19;
    std::int64_t fractionNs = 0;
    if (at < s.size() && s[at] == '.') {
        std::size_t n = 0;
        std::int64_t scale = 100'000'000;
        for (++at; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++n) {
            if (n >= 9)
                return std::nullopt; // finer than a nanosecond: not a layout we know
            fractionNs += (s[at] - '0') * scale;
            scale /= 10;
        }
        if (n == 0)
            return std::nullopt;
    }
    std::int64_t offsetS = 0;
    if (at < s.size() && s[at] == 'Z') {
        ++at;
    } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
        const int sign = s[at] == '-' ? -1 : 1;
        int oh = 0, om = 0;
        const bool colon = at + 3 < s.size() && s[at + 3] == ':';
        if (!digits(s, at + 1, 2, oh) || !digits(s, at + (colon ? 4 : 3), 2, om) || oh > 23 ||
            om > 59)
            return std::nullopt;
        offsetS = sign * (oh * 3600 + om * 60);
        at += colon ? 6 : 5;
    }
    if (at != s.size())
        return std::nullopt;
    const std::int64_t days =
        daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    // The offset says how far local time is ahead of UTC: subtract it.
    const std::int64_t secondsUtc = days * 86400 + hour * 3600 + minute * 60 + second - offsetS;
    return secondsUtc * 1'000'000'000 + fractionNs;
}

TraceParser::Header TraceParser::header(Format format, std::string_view line) {
    // A UTF-8 byte order mark (a spreadsheet's export) is not part of the first name.
    if (line.substr(0, 3) == "\xEF\xBB\xBF")
        line.remove_prefix(3);
    const auto fields = csvFields(line);
    if (!fields)
        return {std::nullopt, "an unterminated quote in the header"};
    const bool azure = format == Format::Azure;
    const std::vector<std::string> wanted =
        azure ? std::vector<std::string>{"TIMESTAMP", "ContextTokens", "GeneratedTokens"}
              : std::vector<std::string>{"Timestamp",       "Model",        "Request tokens",
                                         "Response tokens", "Total tokens", "Log Type"};
    std::vector<int> at(wanted.size(), -1);
    for (std::size_t i = 0; i < fields->size(); ++i)
        for (std::size_t w = 0; w < wanted.size(); ++w)
            if (trimmed((*fields)[i]) == wanted[w] && at[w] < 0)
                at[w] = static_cast<int>(i);
    std::string missing;
    for (std::size_t w = 0; w < wanted.size(); ++w)
        if (at[w] < 0)
            missing += (missing.empty() ? "" : ", ") + wanted[w];
    if (!missing.empty()) {
        std::string all;
        for (const auto& w : wanted)
            all += (all.empty() ? "" : ",") + w;
        return {std::nullopt, std::string("not ") + (azure ? "an Azure" : "a BurstGPT") +
                                  " trace header (" + all + "): no " + missing};
    }
    Columns c;
    c.count = fields->size();
    c.timestamp = at[0];
    if (azure) {
        c.input = at[1];
        c.output = at[2];
    } else {
        c.model = at[1];
        c.input = at[2];
        c.output = at[3];
    }
    return {c, ""};
}

TraceParser::Parsed TraceParser::parse(Format format, std::string_view line,
                                       const Columns& columns) {
    if (blank(line))
        return {};
    if (csv(format))
        return csvRecord(format, line, columns);
    return json(line, format == Format::Bailian);
}

TraceParser::Parsed TraceParser::json(std::string_view line, bool bailian) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object())
        return {std::nullopt, "not a JSON object"};
    TraceRecord r;
    r.blockTokens = blockTokens(bailian ? Format::Bailian : Format::Mooncake);
    const auto ts = j.find("timestamp");
    if (ts == j.end() || !ts->is_number())
        return {std::nullopt, "no numeric \"timestamp\""};
    // Mooncake's timestamps are ms since the trace's start, Bailian's seconds.
    const auto at = toNs(ts->get<double>(), bailian ? 1e9 : 1e6);
    if (!at)
        return {std::nullopt, "\"timestamp\" must be a time of at least 0"};
    r.timeNs = *at;
    const auto in = j.find("input_length");
    const auto input = in == j.end() ? std::nullopt : wholeNumber(*in, 0, kMaxInputTokens);
    if (!input)
        return {std::nullopt, tokenRange("\"input_length\"", kMaxInputTokens)};
    const auto out = j.find("output_length");
    const auto output = out == j.end() ? std::nullopt : wholeNumber(*out, 0, kMaxOutputTokens);
    if (!output)
        return {std::nullopt, tokenRange("\"output_length\"", kMaxOutputTokens)};
    r.inputTokens = static_cast<int>(*input);
    r.outputTokens = static_cast<int>(*output);
    if (const auto ids = j.find("hash_ids"); ids != j.end()) {
        if (!ids->is_array())
            return {std::nullopt, "\"hash_ids\" must be a list of block ids"};
        r.hashIds.reserve(ids->size());
        for (const auto& id : *ids) {
            const auto n = wholeNumber(id, 0, INT64_MAX);
            if (!n)
                return {std::nullopt, "\"hash_ids\" must hold whole numbers of at least 0"};
            r.hashIds.push_back(*n);
        }
    }
    if (!bailian)
        return {std::move(r), ""};
    // Bailian's conversation fields: optional, but of their published type when present.
    using Field = std::pair<const char*, std::int64_t*>;
    for (const auto& [key, target] :
         {Field{"chat_id", &r.chatId}, Field{"parent_chat_id", &r.parentChatId}}) {
        if (const auto v = j.find(key); v != j.end()) {
            const auto n = wholeNumber(*v, -1, INT64_MAX);
            if (!n)
                return {std::nullopt, std::string("\"") + key + "\" must be a whole number"};
            *target = *n;
        }
    }
    if (const auto v = j.find("turn"); v != j.end()) {
        const auto n = wholeNumber(*v, 0, INT32_MAX);
        if (!n)
            return {std::nullopt, "\"turn\" must be a whole number of at least 0"};
        r.turn = static_cast<int>(*n);
    }
    if (const auto v = j.find("type"); v != j.end()) {
        if (!v->is_string())
            return {std::nullopt, "\"type\" must be a string"};
        r.type = v->get<std::string>();
    }
    return {std::move(r), ""};
}

TraceParser::Parsed TraceParser::csvRecord(Format format, std::string_view line,
                                           const Columns& columns) {
    const auto fields = csvFields(line);
    if (!fields)
        return {std::nullopt, "an unterminated quote"};
    if (fields->size() != columns.count)
        return {std::nullopt, std::to_string(fields->size()) + " fields where the header has " +
                                  std::to_string(columns.count)};
    auto field = [&](int i) { return std::string_view((*fields)[static_cast<std::size_t>(i)]); };
    TraceRecord r;
    if (format == Format::Azure) {
        const auto at = dateTimeNs(field(columns.timestamp));
        if (!at)
            return {std::nullopt, "TIMESTAMP \"" + std::string(trimmed(field(columns.timestamp))) +
                                      "\" is not a date and time such as 2023-11-16 "
                                      "18:15:46.6805900"};
        r.timeNs = *at;
    } else {
        const auto seconds = decimal(field(columns.timestamp));
        const auto at = seconds ? toNs(*seconds, 1e9) : std::nullopt;
        if (!at)
            return {std::nullopt, "Timestamp \"" + std::string(trimmed(field(columns.timestamp))) +
                                      "\" is not a number of seconds of at least 0"};
        r.timeNs = *at;
        r.model = std::string(trimmed(field(columns.model)));
    }
    const bool azure = format == Format::Azure;
    const auto input = wholeNumber(field(columns.input), 0, kMaxInputTokens);
    if (!input)
        return {std::nullopt,
                tokenRange(azure ? "ContextTokens" : "Request tokens", kMaxInputTokens)};
    const auto output = wholeNumber(field(columns.output), 0, kMaxOutputTokens);
    if (!output)
        return {std::nullopt,
                tokenRange(azure ? "GeneratedTokens" : "Response tokens", kMaxOutputTokens)};
    r.inputTokens = static_cast<int>(*input);
    r.outputTokens = static_cast<int>(*output);
    return {std::move(r), ""};
}

} // namespace tierscope
