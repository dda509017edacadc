#include "remote/SshTarget.h"

#include <cctype>

namespace tierscope {

namespace {

constexpr std::size_t kMaxHost = 253; // a DNS name's longest text form
constexpr std::size_t kMaxUser = 32;

bool nameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

// Letters, digits, '.', '-', '_'; starting with a letter or digit, so never an ssh option
// ("-o...") and never a path.
bool validName(std::string_view s, std::size_t maxLength) {
    if (s.empty() || s.size() > maxLength || !std::isalnum(static_cast<unsigned char>(s[0])))
        return false;
    for (const char c : s)
        if (!nameChar(c))
            return false;
    return true;
}

bool validIpv6(std::string_view s) {
    if (s.size() < 2 || s.size() > 45)
        return false;
    for (const char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
            return false;
    return s.find(':') != std::string_view::npos;
}

std::optional<int> parsePort(std::string_view s) {
    if (s.empty() || s.size() > 5)
        return std::nullopt;
    int value = 0;
    for (const char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535)
        return std::nullopt;
    return value;
}

SshTarget::Parsed fail(std::string message) {
    return {std::nullopt, std::move(message)};
}

} // namespace

SshTarget::Parsed SshTarget::parse(std::string_view text) {
    if (text == "local")
        return {SshTarget{}, {}};
    constexpr std::string_view scheme = "ssh://";
    if (text.substr(0, scheme.size()) != scheme)
        return fail("a target is \"local\" or ssh://[user@]host[:port], not \"" +
                    std::string(text.substr(0, 80)) + "\"");
    std::string_view rest = text.substr(scheme.size());
    if (rest.empty())
        return fail("ssh:// needs a host, e.g. ssh://gpu01 or ssh://me@gpu01:2222");
    if (!rest.empty() && rest.back() == '/')
        rest.remove_suffix(1);
    if (rest.find_first_of("/?#") != std::string_view::npos)
        return fail("an ssh target names a machine only (ssh://[user@]host[:port]); no path, "
                    "query or fragment");
    SshTarget t;
    t.local = false;
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
        const auto user = rest.substr(0, at);
        if (!validName(user, kMaxUser))
            return fail("ssh target: the user name may hold letters, digits, '.', '-' and '_' "
                        "and must start with a letter or digit");
        t.user = std::string(user);
        rest = rest.substr(at + 1);
    }
    std::string_view host = rest;
    std::string_view port;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos)
            return fail("ssh target: an IPv6 address needs its closing ']'");
        host = rest.substr(1, close - 1);
        const auto after = rest.substr(close + 1);
        if (!after.empty() && after.front() != ':')
            return fail("ssh target: only :port may follow an IPv6 address");
        if (!after.empty())
            port = after.substr(1);
        if (!validIpv6(host))
            return fail("ssh target: \"" + std::string(host.substr(0, 60)) +
                        "\" is not an IPv6 address");
    } else {
        if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
            host = rest.substr(0, colon);
            port = rest.substr(colon + 1);
            if (port.empty())
                return fail("ssh target: ':' must be followed by a port number");
        }
        if (!validName(host, kMaxHost))
            return fail("ssh target: the host may hold letters, digits, '.', '-' and '_' and "
                        "must start with a letter or digit (IPv6 in brackets)");
    }
    if (!port.empty()) {
        t.port = parsePort(port);
        if (!t.port)
            return fail("ssh target: the port must be a number from 1 to 65535");
    }
    t.host = std::string(host);
    return {t, {}};
}

std::string SshTarget::uri() const {
    if (local)
        return "local";
    std::string out = "ssh://";
    if (!user.empty())
        out += user + "@";
    out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
    if (port)
        out += ":" + std::to_string(*port);
    return out;
}

} // namespace tierscope
