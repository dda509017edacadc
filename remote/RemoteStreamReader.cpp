#include "remote/RemoteStreamReader.h"

#include "core/util/Utf8.h"

#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

using nlohmann::json;

constexpr int kMaxDepth = 6;
constexpr std::int64_t kMaxMetricId = 1'000'000;
constexpr std::size_t kMaxPairs = 20000;
constexpr std::int64_t kMaxTimeNs = 4'102'444'800'000'000'000; // 2100-01-01

// Deep nesting is refused before parsing: a line of ten thousand '[' must not reach a parser.
bool shallow(std::string_view text) {
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth)
                return false;
        } else if (c == ']' || c == '}')
            --depth;
    }
    return true;
}

// Printable text of at most `max` bytes, or nullopt when the field is missing or not a string.
std::optional<std::string> text(const json& j, const char* key, std::size_t max,
                                bool required = true) {
    const auto it = j.find(key);
    if (it == j.end())
        return required ? std::nullopt : std::optional<std::string>(std::string());
    if (!it->is_string())
        return std::nullopt;
    const auto& s = it->get_ref<const std::string&>();
    if (s.size() > max)
        return std::nullopt;
    std::string out = Utf8::lossy(s);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return out;
}

std::optional<std::int64_t> integer(const json& j, const char* key, std::int64_t lo,
                                    std::int64_t hi) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer())
        return std::nullopt;
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
        return std::nullopt;
    const auto v = it->get<std::int64_t>();
    if (v < lo || v > hi)
        return std::nullopt;
    return v;
}

std::optional<std::string> object(const json& j, const char* key, std::size_t max) {
    const auto it = j.find(key);
    if (it == j.end())
        return std::string("{}");
    if (!it->is_object())
        return std::nullopt;
    std::string dumped = it->dump(-1, ' ', false, json::error_handler_t::replace);
    if (dumped.size() > max)
        return std::nullopt;
    return dumped;
}

// A metric path as the store and the charts expect it: printable ASCII, no spaces.
bool validPath(const std::string& path) {
    if (path.empty() || path.size() > 256)
        return false;
    for (const char c : path)
        if (c <= 0x20 || c >= 0x7f)
            return false;
    return true;
}

} // namespace

bool RemoteStreamReader::validJobId(const std::string& id) {
    if (id.empty() || id.size() > 64)
        return false;
    for (const char c : id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
            return false;
    return true;
}

RemoteStreamReader::RemoteStreamReader(Callbacks callbacks) : m_callbacks(std::move(callbacks)) {}

void RemoteStreamReader::fail(std::string message) {
    if (m_error.empty())
        m_error = "line " + std::to_string(m_lines) + " from the server: " + std::move(message);
}

bool RemoteStreamReader::feed(std::string_view bytes) {
    while (!broken() && !bytes.empty()) {
        const auto nl = bytes.find('\n');
        const auto piece = bytes.substr(0, nl);
        if (m_partial.size() + piece.size() > kMaxLine) {
            ++m_lines;
            fail("a line longer than " + std::to_string(kMaxLine) + " bytes");
            break;
        }
        if (nl == std::string_view::npos) {
            m_partial.append(piece);
            break;
        }
        ++m_lines;
        if (m_partial.empty()) {
            line(piece);
        } else {
            m_partial.append(piece);
            const std::string whole = std::move(m_partial);
            m_partial.clear();
            line(whole);
        }
        bytes.remove_prefix(nl + 1);
    }
    return !broken();
}

void RemoteStreamReader::line(std::string_view raw) {
    if (!raw.empty() && raw.back() == '\r')
        raw.remove_suffix(1);
    if (raw.empty())
        return;
    if (m_ended)
        return fail("data after the end line");
    if (!shallow(raw))
        return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    const json j = json::parse(raw, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail("not a JSON object");
    const auto type = text(j, "type", 32);
    if (!type)
        return fail("no \"type\"");

    if (!m_hello) {
        if (*type != "hello")
            return fail("the first line is not a hello (is this tierscope?)");
        Hello h;
        const auto format = integer(j, "format", 0, 1'000'000);
        const auto version = text(j, "version", 64);
        const auto host = text(j, "host", 253, false);
        const auto what = text(j, "what", 32, false);
        const auto session = integer(j, "session", 0, INT64_MAX);
        if (!format || !version || !host || !what)
            return fail("a malformed hello");
        h.format = static_cast<int>(*format);
        h.version = *version;
        h.host = *host;
        h.what = *what;
        h.session = session.value_or(0);
        if (h.format != kFormat) {
            m_incompatible = true;
            return fail("the server's tierscope " + h.version + " speaks stream format " +
                        std::to_string(h.format) + "; this one reads format " +
                        std::to_string(kFormat) + " (install the same version on both)");
        }
        m_hello = true;
        if (m_callbacks.hello)
            m_callbacks.hello(h);
        return;
    }

    if (*type == "metric") {
        const auto id = integer(j, "id", 1, kMaxMetricId);
        const auto path = text(j, "path", 256);
        const auto unit = text(j, "unit", 32);
        const auto kind = text(j, "kind", 16);
        const auto labels = object(j, "labels", 2048);
        if (!id || !path || !unit || !kind || !labels || !validPath(*path))
            return fail("a malformed metric");
        if (*kind != "gauge" && *kind != "rate" && *kind != "counter")
            return fail("a metric kind other than gauge, rate or counter");
        MetricDescriptor d{*path, *unit, *kind, *labels};
        const auto known = m_metrics.find(*id);
        if (known != m_metrics.end()) {
            if (known->second.path != d.path)
                return fail("metric id " + std::to_string(*id) + " redefined");
            return;
        }
        if (m_metrics.size() >= kMaxMetrics)
            return fail("more than " + std::to_string(kMaxMetrics) + " metrics");
        m_metrics.emplace(*id, std::move(d));
    } else if (*type == "samples") {
        const auto t = integer(j, "t", 1, kMaxTimeNs);
        const auto v = j.find("v");
        if (!t || v == j.end() || !v->is_array() || v->size() > kMaxPairs)
            return fail("malformed samples");
        m_scratch.clear();
        for (const auto& pair : *v) {
            if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() ||
                !pair[1].is_number())
                return fail("a malformed sample");
            const auto id = pair[0].get<std::int64_t>();
            const auto metric = m_metrics.find(id);
            if (metric == m_metrics.end())
                return fail("a sample of undefined metric " + std::to_string(id));
            const double value = pair[1].get<double>();
            if (!std::isfinite(value))
                return fail("a sample that is not a finite number");
            m_scratch.push_back({metric->second, value});
        }
        if (m_callbacks.samples && !m_scratch.empty())
            m_callbacks.samples(*t, m_scratch);
    } else if (*type == "device" || *type == "backend") {
        const auto kind = text(j, "kind", 64, *type == "device");
        const auto name = text(j, "name", 256);
        const auto attrs = object(j, "attrs", 16384);
        if (!kind || !name || !attrs)
            return fail("a malformed device");
        if (++m_devices > kMaxDevices)
            return fail("more than " + std::to_string(kMaxDevices) + " devices");
        if (m_callbacks.device)
            m_callbacks.device(
                {*type == "backend" ? std::string("backend") : *kind, *name, *attrs});
    } else if (*type == "heartbeat") {
        const auto t = integer(j, "t", 1, kMaxTimeNs);
        if (!t)
            return fail("a malformed heartbeat");
        if (m_callbacks.heartbeat)
            m_callbacks.heartbeat(*t);
    } else if (*type == "log") {
        const auto line = text(j, "text", 4096);
        if (!line)
            return fail("a malformed log line");
        if (m_callbacks.log)
            m_callbacks.log(*line);
    } else if (*type == "exit") {
        const auto code = integer(j, "code", -1, 255);
        if (!code)
            return fail("a malformed exit line");
        if (m_callbacks.exit)
            m_callbacks.exit(static_cast<int>(*code));
    } else if (*type == "job") {
        const auto id = text(j, "id", 64);
        if (!id || !validJobId(*id))
            return fail("a malformed job id");
        if (m_callbacks.job)
            m_callbacks.job(*id);
    } else if (*type == "end") {
        const auto reason = text(j, "reason", 1024, false);
        if (!reason)
            return fail("a malformed end line");
        m_ended = true;
        if (m_callbacks.end)
            m_callbacks.end(*reason);
    }
    // Other types are newer additions within this format: skipped, as the format promises.
}

} // namespace tierscope
