#include "remote/RemoteStreamWriter.h"

#include "remote/RemoteStreamReader.h"
#include "core/util/Version.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

using nlohmann::json;

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json parsedObject(const std::string& text) {
    json j = json::parse(text, nullptr, false);
    return j.is_object() ? j : json::object();
}

} // namespace

RemoteStreamWriter::RemoteStreamWriter(Output out) : m_out(std::move(out)) {}

void RemoteStreamWriter::send(const std::string& line) {
    if (!m_failed && !m_out(line))
        m_failed = true;
}

bool RemoteStreamWriter::failed() const {
    std::lock_guard lock(m_mutex);
    return m_failed;
}

void RemoteStreamWriter::hello(const std::string& what, const std::string& host,
                               std::int64_t session) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "hello"},
               {"format", RemoteStreamReader::kFormat},
               {"tool", "tierscope"},
               {"version", kToolVersion},
               {"host", host},
               {"what", what},
               {"session", session}}));
}

void RemoteStreamWriter::device(const DeviceRecord& d) {
    std::lock_guard lock(m_mutex);
    const bool backend = d.kind == "backend";
    send(dump({{"type", backend ? "backend" : "device"},
               {"kind", d.kind},
               {"name", d.name},
               {"attrs", parsedObject(d.attrs)}}));
}

void RemoteStreamWriter::write(std::int64_t tNs, std::span<const Reading> readings) {
    std::lock_guard lock(m_mutex);
    std::string lines;
    json pairs = json::array();
    for (const auto& r : readings) {
        if (!std::isfinite(r.value))
            continue; // JSON has no NaN; a value that is not a number was not reported
        auto [it, added] = m_ids.try_emplace(r.metric.path, static_cast<int>(m_ids.size()) + 1);
        if (added)
            lines += dump({{"type", "metric"},
                           {"id", it->second},
                           {"path", r.metric.path},
                           {"unit", r.metric.unit},
                           {"kind", r.metric.kind},
                           {"labels", parsedObject(r.metric.labels)}});
        pairs.push_back({it->second, r.value});
    }
    lines += dump({{"type", "samples"}, {"t", tNs}, {"v", std::move(pairs)}});
    send(lines);
}

void RemoteStreamWriter::heartbeat(std::int64_t tNs) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "heartbeat"}, {"t", tNs}}));
}

void RemoteStreamWriter::job(const std::string& id) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "job"}, {"id", id}}));
}

void RemoteStreamWriter::log(const std::string& text) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "log"}, {"text", text.substr(0, 4096)}}));
}

void RemoteStreamWriter::exit(int code) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "exit"}, {"code", code}}));
}

void RemoteStreamWriter::end(const std::string& reason) {
    std::lock_guard lock(m_mutex);
    send(dump({{"type", "end"}, {"reason", reason.substr(0, 1024)}}));
}

} // namespace tierscope
