#pragma once

#include "core/model/DeviceRecord.h"
#include "core/model/SampleSink.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tierscope {

// The server's side of the stream RemoteStreamReader reads: one JSON object per line, each
// written whole through `out` under a lock (collectors write from their own threads). A
// metric's path is sent once with a small id; samples then carry ids. When `out` fails (the
// workstation went away) every later line is dropped and failed() says so.
class RemoteStreamWriter : public SampleSink {
  public:
    using Output = std::function<bool(const std::string& line)>;
    explicit RemoteStreamWriter(Output out);

    void hello(const std::string& what, const std::string& host, std::int64_t session);
    void device(const DeviceRecord& device);
    void write(std::int64_t tNs, std::span<const Reading> readings) override;
    void heartbeat(std::int64_t tNs);
    void job(const std::string& id);
    void log(const std::string& text);
    void exit(int code);
    void end(const std::string& reason);

    bool failed() const;

  private:
    void send(const std::string& line);

    Output m_out;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, int> m_ids;
    bool m_failed = false;
};

} // namespace tierscope
