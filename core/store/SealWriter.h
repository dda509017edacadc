#pragma once

#include "core/model/Sample.h"
#include "core/store/SqliteDb.h"

#include <cstdint>
#include <span>

namespace tierscope {

// Moves samples into their long-term form: packed chunks (at most kMaxChunkSamples samples and
// kMaxChunkSpanNs of time each, so a range read knows how far back a chunk can start) and
// min/max/sum/count rollups per 1 s, 10 s and 60 s bucket. Rollups are upserted, so a bucket
// split across two seals merges instead of being overwritten. Runs inside the caller's
// transaction.
class SealWriter {
  public:
    static constexpr std::size_t kMaxChunkSamples = 1024;
    static constexpr std::int64_t kMaxChunkSpanNs = 60'000'000'000;

    explicit SealWriter(SqliteDb& db);

    // samples must be sorted by time.
    void write(std::int64_t metricId, std::span<const Sample> samples);

  private:
    void writeChunks(std::int64_t metricId, std::span<const Sample> samples);
    void writeRollups(std::int64_t metricId, std::span<const Sample> samples);

    SqliteStatement m_insertChunk;
    SqliteStatement m_upsertRollup;
};

} // namespace tierscope
