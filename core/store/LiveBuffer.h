#pragma once

#include "core/model/Bucket.h"
#include "core/model/MetricInfo.h"
#include "core/model/SampleSink.h"

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tierscope {

// The recent samples of a live recording, in memory, for the live view: collectors write to it
// beside the store (through a TeeSink), and the view decimates its window from here without
// touching SQLite. Samples older than `retentionNs` before the newest are dropped.
class LiveBuffer : public SampleSink {
  public:
    explicit LiveBuffer(std::int64_t retentionNs);

    void write(std::int64_t tNs, std::span<const Reading> readings) override;

    // Series seen so far; ids are this buffer's own (1, 2, ...), stable while it lives.
    std::vector<MetricInfo> metrics() const;
    std::size_t seriesCount() const; // grows only, until clear()
    // Forgets every series, e.g. when the view switches from this machine to a Prometheus
    // server; the version changes.
    void clear();
    // min/max per slot over [t0, t1], at most `slots` buckets.
    std::vector<Bucket> decimated(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns,
                                  int slots) const;
    std::int64_t newestNs() const;
    std::int64_t oldestNs() const;
    std::uint64_t version() const; // changes whenever a sample arrives

  private:
    struct Series {
        MetricInfo info;
        std::deque<std::pair<std::int64_t, double>> samples;
    };
    std::int64_t m_retention;
    mutable std::mutex m_mutex;
    std::unordered_map<std::string, std::size_t> m_index; // path -> position in m_series
    std::vector<Series> m_series;
    std::int64_t m_newest = 0;
    std::int64_t m_oldest = 0;
    std::uint64_t m_version = 0;
};

} // namespace tierscope
