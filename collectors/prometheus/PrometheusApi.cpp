#include "collectors/prometheus/PrometheusApi.h"

#include <cmath>
#include <cstdio>
#include <curl/curl.h>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

std::size_t onData(char* data, std::size_t size, std::size_t count, void* out) {
    auto* body = static_cast<std::string*>(out);
    if (body->size() > (512u << 20))
        return 0; // a runaway answer: stop rather than exhaust memory
    body->append(data, size * count);
    return size * count;
}

std::string number(double v) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.3f", v);
    return buffer;
}

// Prometheus sends sample values as strings: "1.5", "NaN", "+Inf".
std::optional<double> value(const nlohmann::json& v) {
    if (!v.is_string())
        return std::nullopt;
    const std::string s = v.get<std::string>();
    if (s == "+Inf" || s == "Inf")
        return HUGE_VAL;
    if (s == "-Inf")
        return -HUGE_VAL;
    char* end = nullptr;
    const double d = std::strtod(s.c_str(), &end);
    if (end == s.c_str())
        return std::nullopt;
    return d;
}

// A string member, or "" when it is absent or of another type: json::value() would throw on a
// hostile server's {"status": 1}.
std::string stringMember(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void addPoint(PrometheusApi::Series& series, const nlohmann::json& pair) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number())
        return;
    const auto v = value(pair[1]);
    if (v && std::isfinite(*v)) // NaN is "no value": absent, not zero
        series.points.emplace_back(pair[0].get<double>(), *v);
}

} // namespace

PrometheusApi::PrometheusApi(std::string baseUrl, std::chrono::milliseconds timeout)
    : m_base(std::move(baseUrl)), m_timeout(timeout) {
    while (!m_base.empty() && m_base.back() == '/')
        m_base.pop_back();
}

std::string PrometheusApi::urlEncode(std::string_view text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

PrometheusApi::Result PrometheusApi::parse(std::string_view text) {
    Result r;
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) {
        r.error = "not a Prometheus API answer (no JSON object)";
        return r;
    }
    if (stringMember(j, "status") != "success") {
        const std::string type = stringMember(j, "errorType"), why = stringMember(j, "error");
        r.error = (type.empty() ? "error" : type) + ": " + (why.empty() ? "unknown error" : why);
        return r;
    }
    if (j.contains("warnings") && j["warnings"].is_array())
        for (const auto& w : j["warnings"])
            if (w.is_string())
                r.warnings.push_back(w.get<std::string>());
    const auto& data = j.contains("data") ? j["data"] : nlohmann::json();
    const std::string type = data.is_object() ? stringMember(data, "resultType") : "";
    if (!data.is_object() || !data.contains("result")) {
        r.error = "the answer has no data.result";
        return r;
    }
    if (type == "scalar") {
        Series s;
        addPoint(s, data["result"]);
        r.series.push_back(s);
        return r;
    }
    for (const auto& item : data["result"]) {
        Series s;
        if (item.contains("metric") && item["metric"].is_object())
            for (const auto& [k, v] : item["metric"].items())
                if (v.is_string())
                    s.labels[k] = v.get<std::string>();
        if (type == "matrix" && item.contains("values"))
            for (const auto& pair : item["values"])
                addPoint(s, pair);
        else if (item.contains("value"))
            addPoint(s, item["value"]);
        r.series.push_back(std::move(s));
    }
    return r;
}

PrometheusApi::Result PrometheusApi::get(const std::string& pathAndQuery) const {
    CURL* curl = curl_easy_init();
    std::string body;
    const std::string url = m_base + pathAndQuery;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    // Never file://, gopher:// and the rest, not even through a redirect.
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(m_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    const CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
        Result r;
        r.error = m_base + ": " + curl_easy_strerror(rc);
        return r;
    }
    Result r = parse(body);
    if (!r.error.empty() && status != 200)
        r.error = "HTTP " + std::to_string(status) + ", " + r.error;
    return r;
}

PrometheusApi::Result PrometheusApi::query(const std::string& q, std::optional<double> at) const {
    return get("/api/v1/query?query=" + urlEncode(q) + (at ? "&time=" + number(*at) : ""));
}

PrometheusApi::Result PrometheusApi::queryRange(const std::string& q, double start, double end,
                                                double step) const {
    Result all;
    std::map<std::map<std::string, std::string>, std::size_t> index;
    const double span = step * (kMaxPointsPerQuery - 1);
    for (double from = start; from <= end; from += span + step) {
        const double to = std::min(end, from + span);
        Result piece = get("/api/v1/query_range?query=" + urlEncode(q) + "&start=" + number(from) +
                           "&end=" + number(to) + "&step=" + number(step));
        if (!piece.error.empty()) {
            all.error += (all.error.empty() ? "" : "; ") + piece.error;
            continue; // keep what the other pieces return
        }
        all.warnings.insert(all.warnings.end(), piece.warnings.begin(), piece.warnings.end());
        for (auto& s : piece.series) {
            const auto [it, fresh] = index.emplace(s.labels, all.series.size());
            if (fresh)
                all.series.push_back(std::move(s));
            else
                all.series[it->second].points.insert(all.series[it->second].points.end(),
                                                     s.points.begin(), s.points.end());
        }
    }
    return all;
}

} // namespace tierscope
