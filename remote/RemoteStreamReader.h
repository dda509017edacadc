#pragma once

#include "core/model/DeviceRecord.h"
#include "core/model/Reading.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tierscope {

// Reads what a server's tierscope sends over SSH (`tierscope stream`, `tierscope job follow`):
// JSON lines, the first a hello with the format version. The input is hostile: lines are
// bounded, nesting is bounded, every field is checked for type, range and length, metric ids
// must be defined before use, and text is made printable. The first violation breaks the
// stream for good (error() says why, in one line); nothing after it is delivered.
//
//   {"type":"hello","format":1,"tool":"tierscope","version":"0.1.0","host":"gpu01",
//    "what":"stream","session":12}
//   {"type":"device","kind":"block","name":"nvme0n1","attrs":{...}}   (backend states: "backend")
//   {"type":"metric","id":3,"path":"block/nvme0n1/read_bytes_per_s","unit":"bytes/s",
//    "kind":"rate","labels":{}}
//   {"type":"samples","t":1764592000000000000,"v":[[3,1048576.0],[4,0]]}
//   {"type":"heartbeat","t":1764592001000000000}
//   {"type":"job","id":"1764592000-4242"}
//   {"type":"log","text":"[1/4] disk, ..."}   {"type":"exit","code":0}
//   {"type":"end","reason":"stopped"}
class RemoteStreamReader {
  public:
    static constexpr int kFormat = 1;
    static constexpr std::size_t kMaxLine = 256 * 1024;
    static constexpr std::size_t kMaxMetrics = 20000;
    static constexpr std::size_t kMaxDevices = 10000;

    struct Hello {
        int format = 0;
        std::string version;
        std::string host;
        std::string what;
        std::int64_t session = 0; // the server's session id; 0 when none
    };
    struct Callbacks {
        std::function<void(const Hello&)> hello;
        std::function<void(const DeviceRecord&)> device;
        std::function<void(std::int64_t tNs, std::span<const Reading>)> samples;
        std::function<void(std::int64_t tNs)> heartbeat;
        std::function<void(const std::string& text)> log;
        std::function<void(int code)> exit;
        std::function<void(const std::string& reason)> end;
        std::function<void(const std::string& id)> job; // a job on the server, by id
    };

    explicit RemoteStreamReader(Callbacks callbacks);
    // Letters, digits and '-': a job id names a directory on the server.
    static bool validJobId(const std::string& id);

    // False once the stream is broken; later input is ignored.
    bool feed(std::string_view bytes);
    bool broken() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    bool helloSeen() const { return m_hello; }
    bool incompatible() const { return m_incompatible; }
    std::size_t lines() const { return m_lines; }

  private:
    void line(std::string_view text);
    void fail(std::string message);

    Callbacks m_callbacks;
    std::string m_partial;
    std::string m_error;
    bool m_hello = false;
    bool m_incompatible = false;
    bool m_ended = false;
    std::size_t m_lines = 0;
    std::unordered_map<std::int64_t, MetricDescriptor> m_metrics;
    std::size_t m_devices = 0;
    std::vector<Reading> m_scratch;
};

} // namespace tierscope
