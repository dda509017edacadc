#include "collectors/engine/PrometheusTextParser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace tierscope {

namespace {

bool isNameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}

bool isNameChar(char c) {
    return isNameStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

void skipSpaces(std::string_view s, std::size_t& i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
}

bool readName(std::string_view s, std::size_t& i, std::string& out) {
    if (i >= s.size() || !isNameStart(s[i]))
        return false;
    const std::size_t start = i;
    while (i < s.size() && isNameChar(s[i]))
        ++i;
    out.assign(s.substr(start, i - start));
    return true;
}

// A quoted label value with \\, \" and \n escapes.
bool readQuoted(std::string_view s, std::size_t& i, std::string& out) {
    if (i >= s.size() || s[i] != '"')
        return false;
    ++i;
    out.clear();
    while (i < s.size()) {
        const char c = s[i++];
        if (c == '"')
            return true;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= s.size())
            return false;
        const char e = s[i++];
        out += e == 'n' ? '\n' : e; // \\ and \" keep the character; unknown escapes too
    }
    return false;
}

bool readLabels(std::string_view s, std::size_t& i, PromSample& sample, std::string& why) {
    ++i; // '{'
    for (;;) {
        skipSpaces(s, i);
        if (i < s.size() && s[i] == '}') {
            ++i;
            return true;
        }
        std::string key, value;
        if (!readName(s, i, key)) {
            why = "bad label name";
            return false;
        }
        skipSpaces(s, i);
        if (i >= s.size() || s[i] != '=') {
            why = "expected '=' after label " + key;
            return false;
        }
        ++i;
        skipSpaces(s, i);
        if (!readQuoted(s, i, value)) {
            why = "unterminated value of label " + key;
            return false;
        }
        sample.labels.emplace_back(std::move(key), std::move(value));
        skipSpaces(s, i);
        if (i < s.size() && s[i] == ',')
            ++i;
        else if (i >= s.size() || s[i] != '}') {
            why = "expected ',' or '}' in labels";
            return false;
        }
    }
}

std::string_view nextToken(std::string_view s, std::size_t& i) {
    skipSpaces(s, i);
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t')
        ++i;
    return s.substr(start, i - start);
}

void describe(PrometheusTextParser::Result& r, std::size_t lineNo, const std::string& why) {
    ++r.malformedLines;
    if (r.errors.size() < PrometheusTextParser::kMaxErrors)
        r.errors.push_back("line " + std::to_string(lineNo) + ": " + why);
}

void parseComment(std::string_view line, PrometheusTextParser::Result& r) {
    std::size_t i = 1;
    const std::string_view keyword = nextToken(line, i);
    if (keyword == "EOF") {
        r.sawEof = true;
        return;
    }
    if (keyword != "HELP" && keyword != "TYPE")
        return; // free comment
    skipSpaces(line, i);
    std::string name;
    if (!readName(line, i, name))
        return;
    skipSpaces(line, i);
    std::string_view rest = line.substr(i);
    if (keyword == "TYPE") {
        r.types[name] = std::string(nextToken(line, i));
        return;
    }
    std::string text;
    for (std::size_t k = 0; k < rest.size(); ++k) {
        if (rest[k] == '\\' && k + 1 < rest.size()) {
            text += rest[k + 1] == 'n' ? '\n' : rest[k + 1];
            ++k;
        } else {
            text += rest[k];
        }
    }
    r.help[name] = text;
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() > suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Families without a # TYPE line (copied excerpts, some exporters), or typed untyped/unknown,
// are histograms when they have <family>_bucket samples with an le label; a declared type wins.
void inferHistograms(PrometheusTextParser::Result& r) {
    constexpr std::string_view kBucket = "_bucket";
    for (const auto& s : r.samples) {
        if (!endsWith(s.name, kBucket) || !s.label("le") || r.types.count(s.name))
            continue;
        auto& type = r.types[s.name.substr(0, s.name.size() - kBucket.size())];
        if (type.empty() || type == "untyped" || type == "unknown")
            type = "histogram";
    }
}

} // namespace

bool PrometheusTextParser::parseValue(std::string_view text, double& out) {
    auto lower = std::string(text);
    for (auto& c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "+inf" || lower == "inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (lower == "-inf") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    if (lower == "nan") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    const char* begin = text.data();
    if (!text.empty() && text.front() == '+')
        ++begin;
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size() && begin != end;
}

PrometheusTextParser::Result PrometheusTextParser::parse(std::string_view text,
                                                         const Limits& limits) {
    constexpr std::size_t kCancelCheckLines = 4096;
    Result r;
    std::size_t pos = 0;
    std::size_t lineNo = 0;
    while (pos <= text.size() && !r.sawEof) {
        if (limits.cancel && lineNo % kCancelCheckLines == 0 &&
            limits.cancel->load(std::memory_order_relaxed)) {
            r.cancelled = true;
            return r;
        }
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        std::size_t i = 0;
        skipSpaces(line, i);
        if (i == line.size())
            continue;
        line = line.substr(i);
        if (line.front() == '#') {
            parseComment(line, r);
            continue;
        }
        PromSample sample;
        i = 0;
        if (!readName(line, i, sample.name)) {
            describe(r, lineNo, "expected a metric name");
            continue;
        }
        std::string why;
        if (i < line.size() && line[i] == '{' && !readLabels(line, i, sample, why)) {
            describe(r, lineNo, why);
            continue;
        }
        const std::string_view valueText = nextToken(line, i);
        if (valueText.empty() || !parseValue(valueText, sample.value)) {
            describe(r, lineNo, "bad or missing value for " + sample.name);
            continue;
        }
        const std::string_view stamp = nextToken(line, i);
        if (!stamp.empty()) {
            double t = 0;
            if (!parseValue(stamp, t) || !std::isfinite(t)) {
                describe(r, lineNo, "bad timestamp for " + sample.name);
                continue;
            }
            sample.timestamp = t;
        }
        skipSpaces(line, i);
        if (i < line.size() && line[i] != '#') { // OpenMetrics exemplars start with '#'
            describe(r, lineNo, "trailing text after " + sample.name);
            continue;
        }
        if (r.samples.size() == limits.maxSamples) {
            r.tooManySamples = true;
            return r;
        }
        r.samples.push_back(std::move(sample));
    }
    inferHistograms(r);
    return r;
}

std::string PrometheusTextParser::Result::familyOf(const std::string& sampleName) const {
    if (types.count(sampleName))
        return sampleName;
    for (const char* suffix : {"_bucket", "_sum", "_count", "_total", "_created", "_info"}) {
        const std::string s = suffix;
        if (sampleName.size() > s.size() &&
            sampleName.compare(sampleName.size() - s.size(), s.size(), s) == 0) {
            std::string base = sampleName.substr(0, sampleName.size() - s.size());
            if (types.count(base))
                return base;
        }
    }
    return sampleName;
}

std::string PrometheusTextParser::Result::typeOf(const std::string& sampleName) const {
    const auto it = types.find(familyOf(sampleName));
    return it == types.end() ? "untyped" : it->second;
}

} // namespace tierscope
