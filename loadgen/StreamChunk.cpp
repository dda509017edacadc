#include "loadgen/StreamChunk.h"

#include "core/util/Utf8.h"

#include <limits>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

// Finds `"key":` (the needle), then "...", and unescapes the string. nullopt when the chunk is
// shaped differently, so the caller falls back to a full JSON parse.
std::optional<std::string> stringField(std::string_view json, std::string_view needle) {
    auto at = json.find(needle);
    if (at == std::string_view::npos)
        return std::nullopt;
    at += needle.size();
    while (at < json.size() && json[at] == ' ')
        ++at;
    if (at >= json.size() || json[at] != '"')
        return std::nullopt;
    std::string out;
    for (++at; at < json.size(); ++at) {
        const char c = json[at];
        if (c == '"')
            return out;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++at >= json.size())
            return std::nullopt;
        switch (json[at]) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'u':
            return std::nullopt; // leave \uXXXX to the full parser
        default:
            out += json[at];
        }
    }
    return std::nullopt;
}

// Members are read only when their type is right: json::value() throws on {"text": 0}.
const nlohmann::json* member(const nlohmann::json& object, const char* key) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

std::string textOf(const nlohmann::json* v) {
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<int> count(const nlohmann::json& usage, const char* key) {
    const auto* v = member(usage, key);
    if (!v || !v->is_number_integer())
        return std::nullopt;
    const bool negative = !v->is_number_unsigned() && v->get<long long>() < 0;
    const auto n = negative ? 0ULL : v->get<unsigned long long>();
    if (negative || n > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
        return std::nullopt; // no engine counts that; a wrapped int would read as a figure
    return static_cast<int>(n);
}

} // namespace

StreamChunk StreamChunk::parse(std::string_view data, bool chat, bool idKnown) {
    StreamChunk out;
    if (data == "[DONE]") {
        out.done = true;
        return out;
    }
    if (!Utf8::valid(data)) { // a broken stream: its text must not be stored as an answer
        out.error = "invalid UTF-8 in the event stream";
        return out;
    }
    // A chunk that may carry reasoning text takes the full parse: its answer field is often
    // present but empty or null beside it.
    if (idKnown && data.find("\"usage\"") == std::string_view::npos &&
        data.find("\"error\"") == std::string_view::npos &&
        data.find("\"reasoning") == std::string_view::npos) {
        if (auto text = stringField(data, chat ? R"("content":)" : R"("text":)")) {
            out.text = std::move(*text);
            out.choice = true; // the field lives in choices[0] only
            return out;
        }
    }
    const auto chunk = nlohmann::json::parse(data, nullptr, false);
    if (chunk.is_discarded() || !chunk.is_object()) {
        out.error = "invalid JSON in the event stream";
        return out;
    }
    if (const auto* e = member(chunk, "error")) {
        const auto* message = member(*e, "message");
        out.error = message && message->is_string() ? message->get<std::string>() : e->dump();
    }
    if (const auto* id = member(chunk, "id"); id && id->is_string())
        out.id = id->get<std::string>();
    if (const auto* usage = member(chunk, "usage")) {
        out.promptTokens = count(*usage, "prompt_tokens");
        out.outputTokens = count(*usage, "completion_tokens");
    }
    const auto* choices = member(chunk, "choices");
    if (!choices || !choices->is_array() || choices->empty())
        return out;
    out.choice = true;
    const auto& choice = (*choices)[0];
    if (!chat) {
        out.text = textOf(member(choice, "text"));
        return out;
    }
    if (const auto* delta = member(choice, "delta")) {
        out.text = textOf(member(*delta, "content"));
        // SGLang and vLLM name it reasoning_content; newer vLLM releases name it reasoning.
        out.reasoning = textOf(member(*delta, "reasoning_content"));
        out.reasoning += textOf(member(*delta, "reasoning"));
    }
    return out;
}

} // namespace tierscope
