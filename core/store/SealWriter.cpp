#include "core/store/SealWriter.h"

#include "core/model/Bucket.h"
#include "core/store/ChunkCodec.h"
#include "core/store/RollupLevels.h"

namespace tierscope {

SealWriter::SealWriter(SqliteDb& db)
    : m_insertChunk(db.prepare(
          "INSERT INTO sample_chunk(metric_id, t_start, t_end, n, data) VALUES (?, ?, ?, ?, ?)")),
      m_upsertRollup(db.prepare(
          "INSERT INTO rollup(metric_id, level_s, t_bucket, min, max, sum, count) "
          "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(metric_id, level_s, t_bucket) DO UPDATE SET "
          "min = min(min, excluded.min), max = max(max, excluded.max), "
          "sum = sum + excluded.sum, count = count + excluded.count")) {}

void SealWriter::write(std::int64_t metricId, std::span<const Sample> samples) {
    if (samples.empty())
        return;
    writeChunks(metricId, samples);
    writeRollups(metricId, samples);
}

void SealWriter::writeChunks(std::int64_t metricId, std::span<const Sample> samples) {
    std::size_t begin = 0;
    while (begin < samples.size()) {
        std::size_t end = begin + 1;
        while (end < samples.size() && end - begin < kMaxChunkSamples &&
               samples[end].tNs - samples[begin].tNs < kMaxChunkSpanNs)
            ++end;
        const auto chunk = samples.subspan(begin, end - begin);
        const auto blob = ChunkCodec::encode(chunk);
        m_insertChunk.bind(1, metricId)
            .bind(2, chunk.front().tNs)
            .bind(3, chunk.back().tNs)
            .bind(4, static_cast<std::int64_t>(chunk.size()))
            .bind(5, std::span<const unsigned char>(blob))
            .run();
        begin = end;
    }
}

void SealWriter::writeRollups(std::int64_t metricId, std::span<const Sample> samples) {
    for (const std::int64_t level : kRollupLevelsS) {
        Bucket bucket;
        bucket.tNs = bucketStart(samples.front().tNs, level);
        auto flush = [&] {
            m_upsertRollup.bind(1, metricId)
                .bind(2, level)
                .bind(3, bucket.tNs)
                .bind(4, bucket.min)
                .bind(5, bucket.max)
                .bind(6, bucket.sum)
                .bind(7, bucket.count)
                .run();
        };
        for (const Sample& s : samples) {
            const std::int64_t start = bucketStart(s.tNs, level);
            if (start != bucket.tNs && bucket.count > 0) {
                flush();
                bucket = Bucket{};
            }
            bucket.tNs = start;
            bucket.add(s.value);
        }
        if (bucket.count > 0)
            flush();
    }
}

} // namespace tierscope
