#include "core/store/VllmBenchImport.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <stdexcept>

namespace tierscope {

namespace {

using Json = nlohmann::json;

// The per-request arrays, as read: one entry per request, a value that is no number is absent
// (and an error for the arrays where vLLM always writes one).
struct Arrays {
    std::vector<std::optional<double>> ttfts, inputLens, outputLens;
    std::vector<std::optional<std::string>> errors;
    std::vector<std::vector<double>> itls;
    bool hasTtfts = false, hasInput = false, hasOutput = false, hasErrors = false, hasItls = false;
};

// Reads a result without building the document: the scalars become the summary, the five
// per-request arrays are kept compactly and everything else (generated_texts, the bulk of a
// --save-detailed file) is skipped. Memory is the file's figures, not a tree of its text.
class ResultReader : public nlohmann::json_sax<Json> {
  public:
    Json summary = Json::object();
    Arrays arrays;
    std::string error;   // a value that breaks a rule, said in the user's terms
    bool syntax = false; // not JSON at all (or trailing content): a JSON Lines file, maybe
    std::size_t errorAt = 0;

    bool null() override { return scalar(Json()); }
    bool boolean(bool v) override { return scalar(Json(v)); }
    bool number_integer(number_integer_t v) override { return scalar(Json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(Json(v)); }
    bool number_float(number_float_t v, const string_t&) override { return scalar(Json(v)); }
    bool string(string_t& v) override { return scalar(Json(std::move(v))); }
    bool binary(binary_t&) override { return scalar(Json()); }
    bool key(string_t& k) override {
        if (m_depth == 1)
            m_key = k;
        return true;
    }
    bool start_object(std::size_t) override {
        if (m_depth >= 2 && m_array != Which::None)
            return fail("\"" + m_key + "\" holds an object where a value belongs");
        return open();
    }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override {
        if (m_depth == 0) {
            error = "not a JSON object";
            return false;
        }
        if (m_depth == 1)
            startArray();
        else if (m_depth == 2 && m_array == Which::Itls)
            arrays.itls.emplace_back();
        else if (m_array != Which::None)
            return fail("\"" + m_key + "\" holds a list where a value belongs");
        return open();
    }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) override {
        syntax = true;
        errorAt = position;
        error = e.what();
        return false;
    }

  private:
    enum class Which { None, Ttfts, Input, Output, Errors, Itls };

    bool open() {
        ++m_depth;
        return true;
    }
    bool close() {
        --m_depth;
        if (m_depth == 1)
            m_array = Which::None;
        return true;
    }
    void startArray() {
        static const std::pair<const char*, Which> known[] = {{"ttfts", Which::Ttfts},
                                                              {"input_lens", Which::Input},
                                                              {"output_lens", Which::Output},
                                                              {"errors", Which::Errors},
                                                              {"itls", Which::Itls}};
        m_array = Which::None;
        for (const auto& [name, which] : known)
            if (m_key == name)
                m_array = which;
        arrays.hasTtfts |= m_array == Which::Ttfts;
        arrays.hasInput |= m_array == Which::Input;
        arrays.hasOutput |= m_array == Which::Output;
        arrays.hasErrors |= m_array == Which::Errors;
        arrays.hasItls |= m_array == Which::Itls;
    }
    bool scalar(Json v) {
        if (m_depth == 0) {
            error = "not a JSON object";
            return false;
        }
        if (m_depth == 1) {
            summary[m_key] = std::move(v);
            return true;
        }
        const std::optional<double> number =
            v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
        if (m_array == Which::Itls && m_depth != 3)
            return fail("\"itls\" holds " + v.dump() + " where a list of gaps belongs");
        switch (m_array) {
        case Which::Ttfts:
            arrays.ttfts.push_back(number);
            break;
        case Which::Input:
            arrays.inputLens.push_back(number);
            break;
        case Which::Output:
            arrays.outputLens.push_back(number);
            break;
        case Which::Errors:
            arrays.errors.push_back(v.is_string() ? std::optional(v.get<std::string>())
                                                  : std::nullopt);
            break;
        case Which::Itls:
            if (!number)
                return fail("\"itls\" of request " + std::to_string(arrays.itls.size() - 1) +
                            " holds " + v.dump() + ", not a number of seconds");
            arrays.itls.back().push_back(*number);
            break;
        case Which::None:
            break;
        }
        return true;
    }
    bool fail(std::string why) {
        error = std::move(why);
        return false;
    }

    int m_depth = 0;
    std::string m_key;
    Which m_array = Which::None;
};

[[noreturn]] void refuse(const std::string& why) {
    throw std::runtime_error(why);
}

std::string shown(const Json& v) {
    const std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

// A count vLLM writes as an integer: a string, a fraction or a negative one is refused.
void checkCount(const Json& summary, const char* key) {
    if (!summary.contains(key) || summary[key].is_null())
        return;
    const Json& v = summary[key];
    if (!v.is_number_integer() || v.get<double>() < 0)
        refuse(std::string("\"") + key + "\" is " + shown(v) +
               ", not a count (a whole number, 0 or more)");
}

// Summary figures: latencies (*_ms) within a day, rates and durations finite and not negative.
void checkSummary(const Json& summary) {
    for (const char* key : {"completed", "duration", "mean_ttft_ms"})
        if (!summary.contains(key))
            refuse(std::string("not a vllm bench serve result: no \"") + key + "\"");
    for (const char* key : {"completed", "failed", "num_prompts", "total_input_tokens",
                            "total_output_tokens", "max_concurrent_requests"})
        checkCount(summary, key);
    for (const auto& [key, v] : summary.items()) {
        const bool latency = key.ends_with("_ms");
        const bool rate = key.ends_with("_throughput") || key.ends_with("_per_s") ||
                          key == "request_goodput" || key == "duration";
        if (!latency && !rate)
            continue;
        if (v.is_null() && key != "duration" && key != "mean_ttft_ms")
            continue;
        const double max = latency             ? VllmBenchImport::kMaxLatencyS * 1e3
                           : key == "duration" ? VllmBenchImport::kMaxDurationS
                                               : HUGE_VAL;
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
            v.get<double>() > max)
            refuse("\"" + key + "\" is " + shown(v) + ", not a figure " +
                   (max == HUGE_VAL ? std::string("of 0 or more")
                                    : "between 0 and " + Json(max).dump()));
    }
}

// "date" is vLLM's %Y%m%d-%H%M%S in the benchmark host's local time; anything else, or a year
// that would overflow the nanosecond clock, is refused rather than silently dropped.
std::optional<std::int64_t> startOf(const Json& summary) {
    if (!summary.contains("date") || summary["date"].is_null())
        return std::nullopt;
    const Json& v = summary["date"];
    const std::string text = v.is_string() ? v.get<std::string>() : std::string();
    std::tm tm{};
    const char* end = text.size() == 15 ? strptime(text.c_str(), "%Y%m%d-%H%M%S", &tm) : nullptr;
    if (!end || *end != '\0' || tm.tm_year < 70 || tm.tm_year > 2200 - 1900)
        refuse("\"date\" is " + shown(v) + ", not vLLM's YYYYMMDD-HHMMSS between 1970 and 2200");
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1))
        refuse("\"date\" is " + shown(v) + ", not a time this host can represent");
    return static_cast<std::int64_t>(t) * 1'000'000'000;
}

std::optional<int> tokens(const std::optional<double>& v, const char* array, std::size_t i) {
    if (!v)
        return std::nullopt;
    if (*v < 0 || *v > VllmBenchImport::kMaxTokens || std::floor(*v) != *v)
        refuse(std::string("\"") + array + "\" of request " + std::to_string(i) + " is " +
               Json(*v).dump() + ", not a token count between 0 and " +
               std::to_string(VllmBenchImport::kMaxTokens));
    return static_cast<int>(*v);
}

double seconds(double v, const char* array, std::size_t i) {
    if (!std::isfinite(v) || v < 0 || v > VllmBenchImport::kMaxLatencyS)
        refuse(std::string("\"") + array + "\" of request " + std::to_string(i) + " is " +
               Json(v).dump() + " s, not a latency between 0 and " +
               Json(VllmBenchImport::kMaxLatencyS).dump() + " s");
    return v;
}

std::vector<RequestRecord> requestsOf(const Arrays& a) {
    const std::size_t n = a.ttfts.size();
    auto sameLength = [n](bool has, std::size_t size, const char* name) {
        if (has && size != n)
            refuse(std::string("\"") + name + "\" has " + std::to_string(size) +
                   " entries and \"ttfts\" " + std::to_string(n) + ": not one per request");
    };
    sameLength(a.hasInput, a.inputLens.size(), "input_lens");
    sameLength(a.hasOutput, a.outputLens.size(), "output_lens");
    sameLength(a.hasErrors, a.errors.size(), "errors");
    sameLength(a.hasItls, a.itls.size(), "itls");
    std::vector<RequestRecord> out;
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        RequestRecord r;
        r.index = static_cast<std::int64_t>(i);
        r.error = a.hasErrors ? a.errors[i].value_or("") : "";
        r.httpStatus = r.error.empty() ? 200 : 0;
        if (a.hasInput)
            r.promptTokens = tokens(a.inputLens[i], "input_lens", i);
        if (a.hasOutput)
            r.outputTokens = tokens(a.outputLens[i], "output_lens", i);
        if (!a.ttfts[i])
            refuse("\"ttfts\" of request " + std::to_string(i) + " is not a number");
        const double ttft = seconds(*a.ttfts[i], "ttfts", i);
        if (r.error.empty())
            r.ttftS = ttft; // vLLM writes 0 for a failed request: absent, not zero
        if (a.hasItls)
            for (const double g : a.itls[i])
                r.itlS.push_back(seconds(g, "itls", i));
        if (r.ttftS) {
            double e2e = *r.ttftS;
            for (const double g : r.itlS)
                e2e += g;
            r.e2eS = e2e; // vLLM does not save per-request latency; TTFT plus the gaps is it
        }
        out.push_back(std::move(r));
    }
    return out;
}

VllmBenchImport build(ResultReader& reader) {
    const Json& file = reader.summary;
    checkSummary(file);
    VllmBenchImport out;
    out.startNs = startOf(file);
    out.model = file.contains("model_id") && file["model_id"].is_string()
                    ? file["model_id"].get<std::string>()
                    : "";
    out.label =
        file.contains("label") && file["label"].is_string() ? file["label"].get<std::string>() : "";
    for (const char* key : {"model_id", "backend", "endpoint_type", "num_prompts", "request_rate",
                            "burstiness", "max_concurrency", "label"})
        if (file.contains(key))
            out.params[key] = file[key];
    if (reader.arrays.hasTtfts)
        out.requests = requestsOf(reader.arrays);
    out.summary = std::move(reader.summary);
    return out;
}

// One result from text; nullopt with `syntax` set when the text is no single JSON value.
std::optional<VllmBenchImport> readOne(const std::string& text, bool& syntax) {
    ResultReader reader;
    const bool ok = Json::sax_parse(text, &reader);
    syntax = !ok && reader.syntax;
    if (syntax)
        return std::nullopt;
    if (!ok)
        refuse(reader.error);
    return build(reader);
}

} // namespace

VllmBenchImport VllmBenchImport::parse(const std::string& text) {
    bool syntax = false;
    auto one = readOne(text, syntax);
    if (!one)
        refuse(text.find_first_not_of(" \t\r\n") == std::string::npos ? "empty" : "not JSON");
    return std::move(*one);
}

std::vector<VllmBenchImport> VllmBenchImport::parseAll(const std::string& text) {
    bool syntax = false;
    if (auto whole = readOne(text, syntax)) {
        std::vector<VllmBenchImport> out;
        out.push_back(std::move(*whole));
        return out;
    }
    std::vector<VllmBenchImport> out;
    std::size_t from = 0;
    for (int line = 1; from < text.size(); ++line) {
        const auto end = std::min(text.find('\n', from), text.size());
        const std::string one = text.substr(from, end - from);
        from = end + 1;
        if (one.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        try {
            out.push_back(parse(one));
        } catch (const std::exception& e) {
            throw std::runtime_error("line " + std::to_string(line) + ": " + e.what());
        }
    }
    if (out.empty())
        throw std::runtime_error("no result in the file");
    return out;
}

} // namespace tierscope
