#include "core/util/Redaction.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

namespace tierscope {

namespace {

std::string lower(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Replaces each match of `re` in `text` by what `with` returns for it.
template <typename With>
std::string replaceEach(const std::string& text, const std::regex& re, With with) {
    std::string out;
    auto last = text.cbegin();
    for (std::sregex_iterator it(text.cbegin(), text.cend(), re), end; it != end; ++it) {
        out.append(last, (*it)[0].first);
        out += with(*it);
        last = (*it)[0].second;
    }
    out.append(last, text.cend());
    return out;
}

std::string redactedQuery(const std::string& text) {
    static const std::regex param(R"(([?&;])([A-Za-z0-9_.\-]+)=([^&#;\s"'<>]*))");
    return replaceEach(text, param, [](const std::smatch& m) {
        if (!Redaction::secretName(m[2].str()) || m[3].length() == 0)
            return m[0].str();
        return m[1].str() + m[2].str() + "=" + Redaction::kMark;
    });
}

} // namespace

bool Redaction::secretName(const std::string& name) {
    static const std::vector<std::string> words = {
        "token", "key",        "apikey",     "secret",      "password", "passwd",        "pass",
        "pwd",   "passphrase", "credential", "credentials", "auth",     "authorization", "cookie"};
    static const std::vector<std::string> tails = {"token", "secret", "password", "passwd",
                                                   "apikey"};
    std::vector<std::string> parts;
    std::string part;
    for (const char c : lower(name) + "_") {
        if (c == '_' || c == '-' || c == '.' || c == ' ') {
            if (!part.empty())
                parts.push_back(part);
            part.clear();
        } else {
            part += c;
        }
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0 && parts[i - 1] == "per")
            continue; // kv_bytes_per_token: a unit
        const auto& p = parts[i];
        if (std::find(words.begin(), words.end(), p) != words.end())
            return true;
        for (const auto& tail : tails)
            if (endsWith(p, tail))
                return true;
    }
    return false;
}

std::string Redaction::url(const std::string& url) {
    const auto scheme = url.find("://");
    const std::size_t host = scheme == std::string::npos ? 0 : scheme + 3;
    const auto end = url.find_first_of("/?#", host);
    const auto at = url.rfind('@', end == std::string::npos ? std::string::npos : end);
    const std::string bare =
        at == std::string::npos || at < host ? url : url.substr(0, host) + url.substr(at + 1);
    return redactedQuery(bare);
}

std::string Redaction::text(const std::string& text) {
    // name = value, name: value, "name": "value", export NAME=value, --name=value.
    static const std::regex assignment(
        R"re((["']?)([A-Za-z_][A-Za-z0-9_.\-]*)(["']?[ \t]*[=:][ \t]*)("(?:\\.|[^"\\\n])*"|'[^'\n]*'|[^,}\s]+))re");
    std::string out = replaceEach(text, assignment, [](const std::smatch& m) {
        const std::string value = m[4].str();
        if (!secretName(m[2].str()) || value.starts_with("//"))
            return m[0].str();
        const char quote = value.front() == '"' || value.front() == '\'' ? value.front() : 0;
        const std::string mark =
            quote ? std::string(1, quote) + kMark + std::string(1, quote) : std::string(kMark);
        return m[1].str() + m[2].str() + m[3].str() + mark;
    });
    static const std::regex scheme(
        R"((\b(?:Bearer|Basic|bearer|basic|BEARER|BASIC)[ \t]+)[A-Za-z0-9._~+/=\-]{4,})");
    out = std::regex_replace(out, scheme, std::string("$1") + kMark);
    static const std::regex userinfo(R"(([A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@?#"']+@)");
    out = std::regex_replace(out, userinfo, std::string("$1") + kMark + "@");
    out = redactedQuery(out);
    static const std::regex known(
        R"(\b(?:hf_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})\b)");
    return std::regex_replace(out, known, kMark);
}

} // namespace tierscope
