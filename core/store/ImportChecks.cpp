#include "core/store/ImportChecks.h"

#include <algorithm>
#include <stdexcept>

namespace tierscope {

void ImportChecks::refuse(const std::string& why) {
    throw std::runtime_error(why);
}

std::string ImportChecks::shown(const nlohmann::json& v) {
    const std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

const nlohmann::json* ImportChecks::member(const nlohmann::json& object, const char* key) {
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

double ImportChecks::figure(const nlohmann::json& v, const std::string& what, double max) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
        v.get<double>() > max)
        refuse(what + " is " + shown(v) + ", not a figure " +
               (max == HUGE_VAL ? std::string("of 0 or more")
                                : "between 0 and " + nlohmann::json(max).dump()));
    return v.get<double>();
}

std::uint64_t ImportChecks::count(const nlohmann::json& v, const std::string& what) {
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(v.get<std::int64_t>());
    refuse(what + " is " + shown(v) + ", not a count (a whole number, 0 or more)");
}

int ImportChecks::tokens(const nlohmann::json& v, const std::string& what) {
    // A tool may write a count as 550.0 (a float column); a fraction is no token count.
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
        v.get<double>() > kMaxTokens || std::floor(v.get<double>()) != v.get<double>())
        refuse(what + " is " + shown(v) + ", not a token count between 0 and " +
               std::to_string(kMaxTokens));
    return static_cast<int>(v.get<double>());
}

std::optional<double> ImportChecks::perSecond(const std::string& unit) {
    if (unit == "ns")
        return 1e9;
    if (unit == "us")
        return 1e6;
    if (unit == "ms")
        return 1e3;
    if (unit == "sec" || unit == "s")
        return 1.0;
    return std::nullopt;
}

double ImportChecks::seconds(const nlohmann::json& v, const std::string& unit,
                             const std::string& what) {
    const auto scale = perSecond(unit);
    if (!scale)
        refuse(what + " is in \"" + unit + "\", not a unit of time (ns, us, ms, sec)");
    const double s = figure(v, what) / *scale;
    if (s > kMaxLatencyS)
        refuse(what + " is " + shown(v) + " " + unit + ", more than a day: not a latency");
    return s;
}

nlohmann::json ImportChecks::document(const std::string& text, const std::string& under,
                                      const std::vector<std::string>& discard) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        refuse("empty");
    // The keys from the root to the member being parsed, one per depth (none for an array).
    std::vector<std::string> path;
    const nlohmann::json::parser_callback_t drop =
        [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
            if (event != nlohmann::json::parse_event_t::key || depth < 1)
                return true;
            path.resize(static_cast<std::size_t>(depth));
            path.back() = parsed.get<std::string>();
            return std::find(discard.begin(), discard.end(), path.back()) == discard.end() ||
                   std::find(path.begin(), path.end() - 1, under) == path.end() - 1;
        };
    try {
        return nlohmann::json::parse(text, discard.empty() ? nullptr : drop);
    } catch (const nlohmann::json::parse_error& e) {
        // "[json.exception.parse_error.101] parse error at line 3, ...": the part after the
        // library's tag says where and what.
        std::string why = e.what();
        if (const auto at = why.find("] "); at != std::string::npos)
            why = why.substr(at + 2);
        refuse("not JSON: " + why);
    }
}

} // namespace tierscope
