#pragma once

#include "core/model/SampleSink.h"
#include "core/store/StoreWriter.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tierscope {

// Turns collector readings into rows of one session: registers each new metric path once and
// forwards samples to the writer.
class SessionRecorder : public SampleSink {
  public:
    SessionRecorder(StoreWriter& writer, std::int64_t sessionId);

    void write(std::int64_t tNs, std::span<const Reading> readings) override;

    std::size_t metricCount() const;
    std::int64_t sessionId() const { return m_sessionId; }

  private:
    StoreWriter& m_writer;
    std::int64_t m_sessionId;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, int> m_handles;
    std::vector<StoreWriter::PendingSample> m_scratch;
};

} // namespace tierscope
